package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.AttentionHeads;
import io.corpus.encoder.model.EmbeddingWeights;
import io.corpus.encoder.model.LayerAttention;
import io.corpus.encoder.model.LayerWeights;
import io.corpus.encoder.model.Norm;
import io.corpus.encoder.model.RotaryPositions;
import io.corpus.encoder.model.Window;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Gemma3 text models (EmbeddingGemma, {@code model_type} gemma3_text), as
 * {@code modeling_gemma3.py} computes them: token embeddings times √E; pre-norm layers whose
 * attention and feed-forward outputs are normed again before they join the residual
 * ({@code input_layernorm}, {@code post_attention_layernorm}, {@code pre_feedforward_layernorm},
 * {@code post_feedforward_layernorm}); every norm an RMSNorm scaled by (1 + w), which is folded
 * into the weights when they are read; {@code num_key_value_heads} KV heads of {@code head_dim}
 * values with (1 + w) RMS norms on q and k; scores scaled by {@code query_pre_attn_scalar}^−½;
 * sliding layers (by {@code layer_types}, else every layer but each
 * {@code _sliding_window_pattern}-th) with rotary base {@code rope_local_base_freq} and a
 * window, global ones with {@code rope_theta}; bidirectional with
 * {@code use_bidirectional_attention} (a sliding layer's query then sees the keys within
 * {@code sliding_window / 2} either side), else causal (the {@code sliding_window} keys up to the
 * query); GeGLU, {@code down(act(gate) ⊙ up)} with the tanh GELU; a final norm. Refused: logit
 * soft-capping and rope scalings.
 */
final class Gemma3 extends NamedFamily {
  private static final String LAYERS = "layers.";
  private static final String SLIDING = "sliding_attention";
  private static final DecoderTensors.Parts PARTS =
      new DecoderTensors.Parts(true, true, Gemma3::onePlus);

  Gemma3() {
    super(new Names("gemma3", List.of("gemma3_text"),
        "embeddinggemma-300m", "model.", LAYERS, List.of("embed_tokens.", LAYERS, "norm.")));
  }

  @Override
  public Architecture architecture(JsonNode config, Path file) {
    DecoderTensors.refuseSet(config, "attn_logit_softcapping", file);
    DecoderTensors.refuseSet(config, "rope_scaling", file);
    int layers = ModelFamily.positiveInt(config, "num_hidden_layers", file);
    int heads = ModelFamily.positiveInt(config, "num_attention_heads", file);
    int kvHeads = DecoderTensors.kvHeads(config, heads, 4, file);
    int headWidth = DecoderTensors.headWidth(config, heads, 256, file);
    int scalar = config.has("query_pre_attn_scalar")
        ? ModelFamily.positiveInt(config, "query_pre_attn_scalar", file) : 256;
    boolean bidirectional = config.path("use_bidirectional_attention").asBoolean(false);
    int slidingWindow = ModelFamily.positiveInt(config, "sliding_window", file);
    int window = bidirectional ? slidingWindow / 2 : slidingWindow - 1;
    int pattern = ModelFamily.positiveInt(config, "_sliding_window_pattern",
        ModelFamily.positiveInt(config, "sliding_window_pattern", 6, file), file);
    Optional<JsonNode> types = ModelFamily.given(config, "layer_types");
    if (types.isPresent() && types.get().size() != layers) {
      throw new WeightsException(file + ": layer_types has " + types.get().size() + " entries for "
          + layers + " layers (num_hidden_layers); expected one per layer");
    }
    RotaryPositions local = RotaryPositions.halves(
        ModelFamily.positiveNumber(config, "rope_local_base_freq", 10_000, file));
    RotaryPositions global = RotaryPositions.halves(
        ModelFamily.positiveNumber(config, "rope_theta", 1e6, file));
    List<LayerAttention> attention = new ArrayList<>();
    for (int i = 0; i < layers; i++) {
      int layer = i;
      boolean sliding = types.map(t -> t.path(layer).asText("").equals(SLIDING))
          .orElse((i + 1) % pattern != 0);
      attention.add(sliding ? new LayerAttention(Window.within(Math.max(window, 1)), local)
          : new LayerAttention(Window.GLOBAL, global));
    }
    return Architecture.encoder(ModelFamily.activation(config, "hidden_activation", file),
            ModelFamily.positiveNumber(config, "rms_norm_eps", 1e-6, file))
        .preNormWithFinalNorm().gated(true).sandwichNorms().rmsNorm()
        .projectionBias(config.path("attention_bias").asBoolean(false)).feedForwardBias(false)
        .layers(attention)
        .attention(new AttentionHeads.Shaped(kvHeads, headWidth, 1 / Math.sqrt(scalar)))
        .causal(!bidirectional).build();
  }

  @Override
  public EmbeddingWeights embeddings(TensorNaming.TensorSource read, ModelFolder model) {
    int e = model.shape().width();
    long vocabulary = Math.max(1, read.rows("embed_tokens.weight"));
    return EmbeddingWeights.wordsOnly(read.table("embed_tokens.weight", vocabulary, e))
        .scaled((float) Math.sqrt(e));
  }

  @Override
  public LayerWeights layer(TensorNaming.TensorSource read, int i, ModelFolder model) {
    int e = model.shape().width();
    String p = layerPrefix(i);
    return DecoderTensors.layer(read, p, model, PARTS)
        .norms(onePlus(read.take(p + "input_layernorm.weight", e)),
            onePlus(read.take(p + "pre_feedforward_layernorm.weight", e)))
        .postNorms(onePlus(read.take(p + "post_attention_layernorm.weight", e)),
            onePlus(read.take(p + "post_feedforward_layernorm.weight", e)))
        .build();
  }

  /** Gemma's RMSNorm scales by (1 + w): the scale the encoder multiplies by. */
  private static float[] onePlus(float[] w) {
    float[] scale = new float[w.length];
    for (int i = 0; i < w.length; i++) {
      scale[i] = 1 + w[i];
    }
    return scale;
  }

  @Override
  public Norm finalNorm(TensorNaming.TensorSource read, ModelFolder model) {
    return new Norm.Affine(onePlus(read.take("norm.weight", model.shape().width())),
        new float[model.shape().width()]);
  }
}
