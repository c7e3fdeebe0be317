package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.model.FrequencyScaling;
import io.corpus.encoder.model.LayerWeights;
import io.corpus.encoder.model.ModelSettings;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * What the Llama-shaped decoders (Qwen2, Qwen3, Mistral, Gemma3) name alike in a layer, as
 * Llama's code does: {@code self_attn.q_proj}, {@code k_proj}, {@code v_proj} (q heads H·D, KV
 * heads Hkv·D), {@code o_proj}, the per-head {@code q_norm} and {@code k_norm} where the family
 * has them, and {@code mlp.gate_proj}, {@code up_proj}, {@code down_proj}; and what their
 * config.json's name alike.
 */
final class DecoderTensors {
  private DecoderTensors() {}

  /**
   * Which of the shared tensors a family's layers have beyond the projections.
   *
   * @param outBias {@code o_proj} has a bias when the q/k/v projections do ({@code
   *     attention_bias}); Qwen2's q/k/v have biases and its o_proj none
   * @param queryKeyNorms {@code q_norm} and {@code k_norm} on each head (Qwen3, Gemma3)
   * @param scale turns a stored norm weight into the scale the encoder applies (Gemma's 1 + w)
   */
  record Parts(boolean outBias, boolean queryKeyNorms, UnaryOperator<float[]> scale) {
    /** Norm weights used as stored. */
    Parts(boolean outBias, boolean queryKeyNorms) {
      this(outBias, queryKeyNorms, UnaryOperator.identity());
    }
  }

  /**
   * Hkv: config.json's {@code num_key_value_heads}; when the key is absent, the family's
   * configuration class default {@code absent} (transformers' Qwen3Config 32, Gemma3TextConfig
   * 4), when null H. It must divide the {@code heads} H.
   */
  static int kvHeads(JsonNode config, int heads, int absent, Path file) {
    JsonNode value = config.get("num_key_value_heads");
    int kvHeads = value == null ? absent : value.isNull() ? heads
        : ModelFamily.positiveInt(config, "num_key_value_heads", file);
    if (heads % kvHeads != 0) {
      throw new WeightsException(file + ": num_key_value_heads = " + kvHeads
          + (value == null ? " (the default when the key is absent)" : "") + " does not "
          + "divide num_attention_heads = " + heads);
    }
    return kvHeads;
  }

  /**
   * D: config.json's {@code head_dim}, else the family's configuration class default
   * {@code absent} (transformers' Qwen3Config 128, Gemma3TextConfig 256), or for {@code absent}
   * 0 (Qwen2, Mistral, Llama) {@code hidden_size / heads}, refused when H does not divide it, as
   * the modelling code reads it. A {@code head_dim} of null is the same as none.
   */
  static int headWidth(JsonNode config, int heads, int absent, Path file) {
    if (config.hasNonNull("head_dim")) {
      return ModelFamily.positiveInt(config, "head_dim", file);
    }
    if (absent > 0) {
      return absent;
    }
    int width = ModelFamily.positiveInt(config, "hidden_size", file);
    if (width % heads != 0) {
      throw new WeightsException(file + ": num_attention_heads = " + heads + " does not divide "
          + "hidden_size = " + width + " and no head_dim is given");
    }
    return width / heads;
  }

  /**
   * The frequency scaling of {@code rope_scaling} (or transformers 5's {@code rope_parameters}):
   * none when absent, null or of type default, Llama 3's when its {@code rope_type} (or
   * {@code type}) is llama3; any other type refused in one line.
   */
  static FrequencyScaling ropeScaling(JsonNode config, Path file) {
    String key = ModelFamily.given(config, "rope_scaling").isPresent() ? "rope_scaling"
        : "rope_parameters";
    JsonNode scaling = config.path(key);
    String type = scaling.path("rope_type").asText(scaling.path("type").asText("default"));
    if (type.equals("default")) {
      return FrequencyScaling.NONE;
    }
    if (!type.equals("llama3")) {
      throw new WeightsException(file + ": " + key + " " + scaling + " is not supported (null, "
          + "default or llama3)");
    }
    try {
      return new FrequencyScaling.Llama3(scaling.path("factor").asDouble(Double.NaN),
          scaling.path("low_freq_factor").asDouble(Double.NaN),
          scaling.path("high_freq_factor").asDouble(Double.NaN),
          scaling.path("original_max_position_embeddings").asDouble(Double.NaN));
    } catch (IllegalArgumentException e) {
      throw new WeightsException(file + ": " + key + " " + scaling + ": factor, low_freq_factor,"
          + " high_freq_factor and original_max_position_embeddings must be numbers with "
          + "factor >= 1 and 0 < low_freq_factor < high_freq_factor");
    }
  }

  /** Refuses a config.json key that is set (not absent, not null), in one line. */
  static void refuseSet(JsonNode config, String key, Path file) {
    ModelFamily.given(config, key).ifPresent(value -> {
      throw new WeightsException(file + ": " + key + " " + value + " is not supported (null)");
    });
  }

  /**
   * Layer {@code prefix}'s attention and gated feed-forward, as the family's {@code parts} say,
   * in a builder the family finishes with its norms.
   */
  static LayerWeights.Builder layer(TensorNaming.TensorSource read, String prefix,
      ModelFolder model, Parts parts) {
    int e = model.shape().width();
    int f = model.shape().ffnWidth();
    ModelSettings settings = model.settings();   // where the heads' shape is decoded
    int d = settings.headWidth(e);
    int q = model.shape().heads() * d;
    int kv = settings.kvHeads() * d;
    boolean bias = model.architecture().projectionBias();
    String a = prefix + "self_attn.";
    String m = prefix + "mlp.";
    // read.table: in bfloat16 and int8, a BF16 checkpoint's matrices are read into native
    // memory as they are stored, never widened on the heap (28 layers of Qwen3-0.6B put 2.4 GB
    // of float32 garbage through the heap while loading, and its peak with them)
    LayerWeights.Builder layer = LayerWeights.builder(e, f)
        .attention(Matrix.stackRows(read.table(a + "q_proj.weight", q, e),
            read.table(a + "k_proj.weight", kv, e), read.table(a + "v_proj.weight", kv, e)),
            read.table(a + "o_proj.weight", e, q))
        .gatedFeedForward(read.table(m + "gate_proj.weight", f, e),
            read.table(m + "up_proj.weight", f, e), read.table(m + "down_proj.weight", e, f));
    if (bias) {
      layer.attentionBiases(TensorNaming.concat(read.take(a + "q_proj.bias", q),
          read.take(a + "k_proj.bias", kv), read.take(a + "v_proj.bias", kv)),
          parts.outBias() ? read.take(a + "o_proj.bias", e) : new float[e]);
    }
    if (parts.queryKeyNorms()) {
      layer.queryKeyNorms(parts.scale().apply(read.take(a + "q_norm.weight", d)),
          parts.scale().apply(read.take(a + "k_norm.weight", d)));
    }
    return layer;
  }
}
