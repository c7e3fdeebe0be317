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
  private static final String EMBEDDINGS = "embeddings.";

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
    int e = model.shape().width();
    String p = EMBEDDINGS;
    long types = Math.max(1, read.rows(p + "token_type_embeddings.weight"));
    long vocabulary = Math.max(1, read.rows(p + "word_embeddings.weight"));
    long positions = read.rows(p + "position_embeddings.weight");
    if (positions >= 0 && positions != model.shape().maxPositions()) {
      throw new WeightsException("Tensor " + p + "position_embeddings.weight has " + positions
          + " rows but config.json says max_position_embeddings = "
          + model.shape().maxPositions() + ": " + read.path());
    }
    return new EmbeddingWeights(
        read.take(p + "word_embeddings.weight", vocabulary, e),
        read.take(p + "position_embeddings.weight", model.shape().maxPositions(), e),
        read.take(p + "token_type_embeddings.weight", types, e),
        read.take(p + "LayerNorm.weight", e), read.take(p + "LayerNorm.bias", e),
        model.positionOffset(), tokenTypes);
  }

  @Override
  public LayerWeights layer(TensorNaming.TensorSource read, int i, ModelFolder model) {
    return EncoderLayerNames.BERT.read(read, "encoder.layer." + i + ".", model);
  }

}
