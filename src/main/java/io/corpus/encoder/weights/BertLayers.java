package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.model.Architecture;
import java.nio.file.Path;

/**
 * What BERT and RoBERTa share, as {@code modeling_bert.py} computes it: word, position and
 * token-type embeddings summed and normalized; post-norm layers with biases everywhere, a plain
 * feed-forward of {@code hidden_act}, absolute positions, every layer global; no final norm.
 */
abstract class BertLayers extends NamedEncoder {

  /**
   * {@code tokenTypes}: whether the tokenizer's token types reach the model. Hugging Face's
   * RoBERTa tokenizers do not pass {@code token_type_ids} to the model (their
   * {@code model_input_names}), which then embeds every token with type 0.
   */
  BertLayers(Names names, boolean tokenTypes) {
    super(names, tokenTypes ? EmbeddingNames.BERT : EmbeddingNames.ROBERTA,
        EncoderLayerNames.BERT);
  }

  @Override
  public Architecture architecture(JsonNode config, Path file) {
    String positions = config.path("position_embedding_type").asText("absolute");
    if (!positions.equals("absolute")) {
      throw new WeightsException(file + ": position_embedding_type '" + positions
          + "' is not supported (absolute)");
    }
    return Architecture.encoder(ModelFamily.activation(config, "hidden_act", file),
        ModelFamily.positiveNumber(config, "layer_norm_eps", 1e-12, file)).build();
  }
}
