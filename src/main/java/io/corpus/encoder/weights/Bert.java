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
        "bert.", TensorNaming.BERT.layerPrefix(), List.of("embeddings.", "encoder."),
        List.of("pooler.", "classifier.")));
  }

  /** A {@code bert} config.json that does not name Jina's implementation (JinaBERT reads that). */
  @Override
  public boolean reads(JsonNode config) {
    return config.path("model_type").asText("").equals("bert") && !JinaBert.implemented(config);
  }

  @Override
  public boolean usesTokenTypes() {
    return true;
  }

  /** {@code BertForMaskedLM}'s {@code cls.predictions}. */
  @Override
  public List<String> mlmHeadTensors() {
    String p = "cls.predictions.";
    return List.of(p + "transform.dense.weight", p + "transform.dense.bias",
        p + "transform.LayerNorm.weight", p + "transform.LayerNorm.bias", p + "decoder.weight",
        p + "bias", p + "decoder.bias");
  }

  @Override
  public List<String> headTensors() {
    return List.of("pooler.dense.weight", "pooler.dense.bias", "classifier.weight",
        "classifier.bias");
  }
}
