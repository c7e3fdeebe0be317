package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.model.ModelSettings;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * What Qwen3 and Gemma3 name alike in a layer, as Llama's code does: {@code self_attn.q_proj},
 * {@code k_proj}, {@code v_proj} (q heads H·D, KV heads Hkv·D), {@code o_proj}, the per-head
 * {@code q_norm} and {@code k_norm}, and {@code mlp.gate_proj}, {@code up_proj},
 * {@code down_proj}.
 *
 * @param qkv (H·D + 2·Hkv·D, E): q, then k, then v
 * @param qkvBias their biases, zeros when {@code attention_bias} is false
 * @param out (E, H·D) {@code o_proj}
 * @param outBias zeros, or {@code o_proj.bias} where the family has one
 * @param queryNorm (D) q_norm's scale, as the family's norm reads it
 * @param keyNorm (D) k_norm's scale
 * @param gate (F, E) {@code gate_proj}, the activated half
 * @param up (F, E) {@code up_proj}
 * @param down (E, F) {@code down_proj}
 */
record DecoderTensors(float[] qkv, float[] qkvBias, float[] out, float[] outBias,
    float[] queryNorm, float[] keyNorm, float[] gate, float[] up, float[] down) {

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
   * {@code absent} (transformers' Qwen3Config 128, Gemma3TextConfig 256), as the modelling code
   * reads it: not hidden_size / num_attention_heads.
   */
  static int headWidth(JsonNode config, int absent, Path file) {
    return config.has("head_dim") ? ModelFamily.positiveInt(config, "head_dim", file) : absent;
  }

  /**
   * Layer {@code prefix}'s tensors; {@code outBias} says whether o_proj has a bias when the
   * projections do, {@code scale} turns a stored norm weight into the scale the encoder applies.
   */
  static DecoderTensors read(TensorNaming.TensorSource read, String prefix, ModelFolder model,
      boolean outBias, UnaryOperator<float[]> scale) {
    int e = model.width();
    int f = model.ffnWidth();
    ModelSettings.AttentionHeads shape = model.architecture().heads();
    int d = shape.headWidth() > 0 ? shape.headWidth() : e / model.heads();
    int q = model.heads() * d;
    int kv = (shape.kvHeads() > 0 ? shape.kvHeads() : model.heads()) * d;
    boolean bias = model.architecture().projectionBias();
    String a = prefix + "self_attn.";
    String m = prefix + "mlp.";
    return new DecoderTensors(
        TensorNaming.concat(read.take(a + "q_proj.weight", q, e),
            read.take(a + "k_proj.weight", kv, e), read.take(a + "v_proj.weight", kv, e)),
        bias ? TensorNaming.concat(read.take(a + "q_proj.bias", q),
            read.take(a + "k_proj.bias", kv), read.take(a + "v_proj.bias", kv))
            : new float[q + 2 * kv],
        read.take(a + "o_proj.weight", e, q),
        bias && outBias ? read.take(a + "o_proj.bias", e) : new float[e],
        scale.apply(read.take(a + "q_norm.weight", d)),
        scale.apply(read.take(a + "k_norm.weight", d)),
        read.take(m + "gate_proj.weight", f, e), read.take(m + "up_proj.weight", f, e),
        read.take(m + "down_proj.weight", e, f));
  }
}
