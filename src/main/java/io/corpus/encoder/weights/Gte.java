package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.FrequencyScaling;
import io.corpus.encoder.model.LayerAttention;
import io.corpus.encoder.model.RotaryPositions;
import io.corpus.encoder.model.Window;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * GTE v1.5 and gte-multilingual ({@code model_type} new), as Alibaba-NLP/new-impl's
 * {@code modeling.py} computes it, which the job carries instead of running (its
 * {@code auto_map} is recognized): word (and, when {@code type_vocab_size} is above 0, token-type)
 * embeddings, normalized; post-norm layers ({@code attn_ln} after attention, {@code mlp_ln} after
 * the feed-forward) with a fused {@code attention.qkv_proj} and {@code o_proj}; rotary positions of
 * base {@code rope_theta} on whole heads, in halves, NTK-scaled as its
 * {@code NTKScalingRotaryEmbedding} does when {@code rope_scaling} says ntk; a GLU feed-forward,
 * {@code down_proj(act(gate) ⊙ up)} with {@code up_gate_proj} rows up then gate and no bias. Task
 * checkpoints put the encoder under {@code new.}. Refused: other position or norm types, unpacked
 * q/k/v, the log-n attention scales, other rope scalings.
 */
final class Gte extends NamedEncoder {
  private static final String LAYERS = "encoder.layer.";

  Gte() {
    super(new Names("gte", List.of("new"),
        "gte-base-en-v1.5, gte-large-en-v1.5, gte-multilingual-base", "new.", LAYERS,
        List.of("embeddings.", "encoder.")).withCustomCode("New"),
        EmbeddingNames.GTE, EncoderLayerNames.GTE);
  }

  @Override
  public Architecture architecture(JsonNode config, Path file) {
    expect(config, "position_embedding_type", "rope", file);
    expect(config, "layer_norm_type", "layer_norm", file);
    for (String key : List.of("logn_attention_scale", "logn_attention_clip1")) {
      if (config.path(key).asBoolean(false)) {
        throw new WeightsException(file + ": " + key + " = true is not supported (false)");
      }
    }
    if (!config.path("pack_qkv").asBoolean(true)) {
      throw new WeightsException(file + ": pack_qkv = false is not supported (true: one "
          + "qkv_proj)");
    }
    double theta = ModelFamily.positiveNumber(config, "rope_theta", ModelFamily.positiveNumber(
        config.path("rope_parameters"), "rope_theta", 10_000, file), file);
    RotaryPositions rotary = RotaryPositions.halves(theta)
        .scaled(FrequencyScaling.ntk(ntkFactor(config, file)));
    List<LayerAttention> layers = new ArrayList<>();
    int count = ModelFamily.positiveInt(config, "num_hidden_layers", file);
    for (int i = 0; i < count; i++) {
      layers.add(new LayerAttention(Window.GLOBAL, rotary));
    }
    return Architecture.encoder(ModelFamily.activation(config, "hidden_act", file),
        ModelFamily.positiveNumber(config, "layer_norm_eps", 1e-12, file)).gated(true)
        .layers(layers).build();
  }

  private static void expect(JsonNode config, String key, String value, Path file) {
    String found = config.path(key).asText(value);
    if (!found.equals(value)) {
      throw new WeightsException(file + ": " + key + " '" + found + "' is not supported ("
          + value + ")");
    }
  }

  /** The NTK factor of {@code rope_scaling} ({@code type} or {@code rope_type} ntk), else 1. */
  private static double ntkFactor(JsonNode config, Path file) {
    Optional<JsonNode> given = ModelFamily.given(config, "rope_scaling");
    if (given.isEmpty()) {
      return 1;
    }
    JsonNode scaling = given.get();
    String type = scaling.path("type").asText(scaling.path("rope_type").asText(""));
    double factor = scaling.path("factor").asDouble(0);
    if (!type.equals("ntk") || !(factor >= 1) || scaling.has("mixed_b")) {
      throw new WeightsException(file + ": rope_scaling " + scaling + " is not supported "
          + "(null, or type ntk with a factor of at least 1)");
    }
    return factor;
  }
}
