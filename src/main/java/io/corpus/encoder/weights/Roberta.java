package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;

/**
 * XLM-RoBERTa and RoBERTa, as {@code modeling_xlm_roberta.py} computes them: BERT's layers, but
 * position ids start at {@code padding_idx + 1} ({@code create_position_ids_from_input_ids}),
 * so a sequence may have {@code max_position_embeddings − pad_token_id − 1} tokens; one token
 * type; task checkpoints under {@code roberta.}; {@code XLMRobertaForSequenceClassification}'s
 * head is {@code classifier.dense} + tanh on {@code <s>}, then {@code classifier.out_proj}.
 */
final class Roberta extends BertLayers {
  Roberta() {
    super(new Names("xlm-roberta", List.of("xlm-roberta", "roberta", "camembert"),
        "multilingual-e5, paraphrase-multilingual, bge-m3, camembert", "roberta.",
        TensorNaming.BERT.layerPrefix(), List.of("embeddings.", "encoder."))
        .withHeads(HeadTensors.classifier("classifier.dense.weight", "classifier.dense.bias",
            "classifier.out_proj.weight", "classifier.out_proj.bias").withMlm(
            // XLMRobertaForMaskedLM's lm_head
            "lm_head.dense.weight", "lm_head.dense.bias", "lm_head.layer_norm.weight",
            "lm_head.layer_norm.bias", "lm_head.decoder.weight", "lm_head.bias",
            "lm_head.decoder.bias")), false);
  }

  /** A config.json whose positions are not rotary (jina-embeddings-v3's: JinaXlmRoberta). */
  @Override
  public boolean reads(JsonNode config) {
    return super.reads(config) && !JinaXlmRoberta.rotary(config);
  }

  @Override
  public int positionOffset(JsonNode config, Path file) {
    return afterPadding(config, file);
  }

  /**
   * The first position row of a family whose positions start after the padding index
   * ({@code create_position_ids_from_input_ids}): {@code pad_token_id + 1}.
   */
  static int afterPadding(JsonNode config, Path file) {
    JsonNode pad = config.get("pad_token_id");
    int padding = pad == null ? 1 : pad.asInt(-1);   // XLMRobertaConfig's default
    if (padding < 0) {
      throw new WeightsException(file + ": pad_token_id is " + pad + ", expected the padding "
          + "token's id, after which RoBERTa's positions start");
    }
    return padding + 1;
  }
}
