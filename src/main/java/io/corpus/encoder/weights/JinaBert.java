package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.ScoreBias;
import java.nio.file.Path;
import java.util.List;

/**
 * JinaBERT v2 (jina-embeddings-v2-base-en, -small-en, -base-de, -base-es, -base-zh), as
 * jinaai/jina-bert-implementation's {@code modeling_bert.py} computes it, which the job carries
 * instead of running: a {@code bert} config.json with {@code position_embedding_type} alibi whose
 * {@code auto_map} (or {@code _name_or_path}) names that implementation, as
 * text-embeddings-inference recognizes it. Word and token-type embeddings (no position table),
 * normalized; BERT's post-norm attention with ALiBi added to the scores (−slope_h ·
 * |key − query|, both directions); a GLU feed-forward,
 * {@code mlp.layernorm(x + wo(act(gated) ⊙ non_gated))} with {@code mlp.gated_layers} rows gated
 * then non-gated and no bias, act GELU for {@code feed_forward_type} geglu and ReLU for reglu.
 * Checkpoints may put the encoder under {@code bert.}. jina-bert-v2-qk-post-norm (the code
 * models) differs and is refused.
 */
final class JinaBert extends NamedEncoder {
  private static final String IMPLEMENTATION = "jinaai/jina-bert-implementation";
  private static final String LAYERS = "encoder.layer.";

  JinaBert() {
    super(new Names("jinabert", List.of("bert"),
        "jina-embeddings-v2, by its auto_map", "bert.", LAYERS,
        List.of("embeddings.", "encoder.")), EmbeddingNames.JINA_BERT, EncoderLayerNames.JINA_BERT);
  }

  @Override
  public boolean reads(JsonNode config) {
    return config.path("model_type").asText("").equals("bert") && implemented(config);
  }

  /** Whether a config.json names Jina's implementation of BERT (its name or auto_map). */
  static boolean implemented(JsonNode config) {
    return config.path("_name_or_path").asText("").equals(IMPLEMENTATION)
        || config.path("auto_map").path("AutoConfig").asText("").contains(IMPLEMENTATION);
  }

  @Override
  public boolean implementsCustomCode(JsonNode config) {
    return config.path("auto_map").path("AutoConfig").asText("").contains(IMPLEMENTATION);
  }

  @Override
  public Architecture architecture(JsonNode config, Path file) {
    String positions = config.path("position_embedding_type").asText("absolute");
    if (!positions.equals("alibi")) {
      throw new WeightsException(file + ": position_embedding_type '" + positions + "' is not "
          + "supported for " + IMPLEMENTATION + " (alibi)");
    }
    String feedForward = config.path("feed_forward_type").asText("original");
    Activation activation = switch (feedForward) {
      case "geglu" -> Activation.GELU;
      case "reglu" -> Activation.RELU;
      default -> throw new WeightsException(file + ": feed_forward_type '" + feedForward
          + "' is not supported (geglu, reglu)");
    };
    return Architecture.encoder(activation,
            ModelFamily.positiveNumber(config, "layer_norm_eps", 1e-12, file))
        .gated(true).scoreBias(ScoreBias.alibi()).build();
  }
}
