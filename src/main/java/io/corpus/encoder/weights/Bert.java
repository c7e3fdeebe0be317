package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * BERT, as {@code modeling_bert.py} computes it: positions from row 0, token types embedded,
 * {@code BertForSequenceClassification}'s pooler (dense + tanh on [CLS]) and classifier.
 */
final class Bert extends BertLayers {
  Bert() {
    super(new Names("bert", List.of("bert"), "BERT, BGE, E5, MiniLM",
        "bert.", TensorNaming.BERT.layerPrefix(), List.of("embeddings.", "encoder."))
        .withHeads(HeadTensors.classifier("pooler.dense.weight", "pooler.dense.bias",
            "classifier.weight", "classifier.bias").withMlm(
            // BertForMaskedLM's cls.predictions
            "cls.predictions.transform.dense.weight", "cls.predictions.transform.dense.bias",
            "cls.predictions.transform.LayerNorm.weight",
            "cls.predictions.transform.LayerNorm.bias", "cls.predictions.decoder.weight",
            "cls.predictions.bias", "cls.predictions.decoder.bias")), true);
  }

  /** A {@code bert} config.json that does not name Jina's implementation (JinaBERT reads that). */
  @Override
  public boolean reads(JsonNode config) {
    return config.path("model_type").asText("").equals("bert") && !JinaBert.implemented(config);
  }
}
