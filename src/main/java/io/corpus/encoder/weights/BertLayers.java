package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.EmbeddingWeights;
import io.corpus.encoder.model.LayerWeights;
import java.nio.file.Path;

/**
 * What BERT and RoBERTa share, as {@code modeling_bert.py} computes it: word, position and
 * token-type embeddings summed and normalized; post-norm layers with biases everywhere, a plain
 * feed-forward of {@code hidden_act}, absolute positions, every layer global; no final norm.
 */
abstract class BertLayers extends NamedFamily {

  private final boolean tokenTypes;

  /**
   * {@code tokenTypes}: whether the tokenizer's token types reach the model. Hugging Face's
   * RoBERTa tokenizers do not pass {@code token_type_ids} to the model (their
   * {@code model_input_names}), which then embeds every token with type 0.
   */
  BertLayers(Names names, boolean tokenTypes) {
    super(names);
    this.tokenTypes = tokenTypes;
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

  @Override
  public EmbeddingWeights embeddings(TensorNaming.TensorSource read, ModelFolder model) {
    return (tokenTypes ? EmbeddingNames.BERT : EmbeddingNames.ROBERTA).read(read, model);
  }

  @Override
  public LayerWeights layer(TensorNaming.TensorSource read, int i, ModelFolder model) {
    return EncoderLayerNames.BERT.read(read, "encoder.layer." + i + ".", model);
  }

}
