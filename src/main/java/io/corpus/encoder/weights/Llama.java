package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.AttentionHeads;
import io.corpus.encoder.model.LayerAttention;
import io.corpus.encoder.model.RotaryPositions;
import io.corpus.encoder.model.Window;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;

/**
 * Llama (Llama 3 models read by their last token; NVIDIA's llama-nemotron-embed-1b-v2 and
 * llama-embed-nemotron-8b), as {@code modeling_llama.py} computes it: token embeddings; pre-norm
 * layers with RMSNorm ({@code input_layernorm}, {@code post_attention_layernorm}, eps
 * {@code rms_norm_eps}); {@code num_key_value_heads} KV heads (all heads when absent) of
 * {@code head_dim} values (hidden_size / num_attention_heads when absent); biases on q, k, v and
 * o only where {@code attention_bias}; rotary positions of base {@code rope_theta}, rescaled as
 * {@code rope_scaling} says when its type is llama3; SwiGLU; a final {@code norm}.
 *
 * <p>Causal, except NVIDIA's bidirectional model: {@code model_type} llama_bidirec or the class
 * {@code LlamaBidirectionalModel} (named by {@code architectures} and {@code auto_map}; its code,
 * {@code llama_bidirectional_model.py}, sets {@code is_causal = False} on every layer and masks
 * only padding, whatever config.json's flags say), or {@code use_bidirectional_attention: true}
 * or {@code is_causal: false}. Refused: {@code mlp_bias} and rope scalings other than llama3.
 */
final class Llama extends DecoderFamily {
  private static final String BIDIRECTIONAL_CLASS = "LlamaBidirectional";

  Llama() {
    super(DecoderFamily.names("llama", List.of("llama", "llama_bidirec"),
        "llama-nemotron-embed-1b-v2, llama-embed-nemotron-8b, Llama 3 by its last token")
        .withCustomCode(BIDIRECTIONAL_CLASS),
        new DecoderTensors.Parts(true, false));
  }

  /** Whether the folder's model attends both ways (see the class comment). */
  static boolean bidirectional(JsonNode config) {
    boolean bidirectionalClass = false;
    for (JsonNode name : config.path("architectures")) {
      bidirectionalClass |= name.asText("").startsWith(BIDIRECTIONAL_CLASS);
    }
    return bidirectionalClass || config.path("model_type").asText("").equals("llama_bidirec")
        || config.path("use_bidirectional_attention").asBoolean(false)
        || !config.path("is_causal").asBoolean(true);
  }

  @Override
  public Architecture architecture(JsonNode config, Path file) {
    return layers(config, 10_000, 1e-6, bidirectional(config), file);
  }

  /**
   * Llama's layers as config.json sets them, with this rotary base and norm eps when it names
   * none (the family's configuration class defaults; SiLU too), attending both ways or causally.
   */
  static Architecture layers(JsonNode config, double thetaAbsent, double epsAbsent,
      boolean bidirectional, Path file) {
    if (config.path("mlp_bias").asBoolean(false)) {
      throw new WeightsException(file + ": mlp_bias = true is not supported (false)");
    }
    int layers = ModelFamily.positiveInt(config, "num_hidden_layers", file);
    int heads = ModelFamily.positiveInt(config, "num_attention_heads", file);
    RotaryPositions rotary = RotaryPositions.halves(ModelFamily.positiveNumber(config, "rope_theta",
            ModelFamily.positiveNumber(config.path("rope_parameters"), "rope_theta", thetaAbsent,
                file), file))
        .scaled(DecoderTensors.ropeScaling(config, file));
    return Architecture.encoder(config.has("hidden_act")
            ? ModelFamily.activation(config, "hidden_act", file) : Activation.SILU,
            ModelFamily.positiveNumber(config, "rms_norm_eps", epsAbsent, file))
        .preNormWithFinalNorm().gated(true).rmsNorm()
        .projectionBias(config.path("attention_bias").asBoolean(false)).feedForwardBias(false)
        .layers(Collections.nCopies(layers, new LayerAttention(Window.GLOBAL, rotary)))
        .attention(AttentionHeads.grouped(
            DecoderTensors.kvHeads(config, heads, heads, file),
            DecoderTensors.headWidth(config, heads, 0, file)))
        .causal(!bidirectional).build();
  }
}
