package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * BERT, as {@code modeling_bert.py} computes it: positions from row 0, token types embedded,
 * {@code BertForSequenceClassification}'s pooler (dense + tanh on [CLS]) and classifier.
 */
final class Bert extends BertLayers {
  @Override
  public List<String> modelTypes() {
    return List.of("bert");
  }

  @Override
  public String examples() {
    return "BERT, BGE, E5, MiniLM";
  }

  /** A {@code bert} config.json that does not name Jina's implementation (JinaBERT reads that). */
  @Override
  public boolean reads(JsonNode config) {
    return config.path("model_type").asText("").equals("bert") && !JinaBert.implemented(config);
  }

  @Override
  public String name() {
    return "bert";
  }

  @Override
  public String taskPrefix() {
    return "bert.";
  }

  @Override
  public boolean usesTokenTypes() {
    return true;
  }

  @Override
  public List<String> keptPrefixes(boolean classifier) {
    return classifier ? List.of("embeddings.", "encoder.", "pooler.", "classifier.")
        : List.of("embeddings.", "encoder.");
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
