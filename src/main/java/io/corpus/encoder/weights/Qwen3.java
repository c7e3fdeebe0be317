package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.AttentionHeads;
import io.corpus.encoder.model.LayerAttention;
import io.corpus.encoder.model.RotaryPositions;
import io.corpus.encoder.model.Window;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Qwen3 (Qwen3-Embedding-0.6B, 4B, 8B), as {@code modeling_qwen3.py} computes it: token
 * embeddings (no norm, no positions); pre-norm layers with RMSNorm ({@code input_layernorm},
 * {@code post_attention_layernorm}, eps {@code rms_norm_eps}); causal attention (bidirectional
 * when {@code use_bidirectional_attention}) with {@code num_key_value_heads} KV heads shared by
 * groups of query heads, heads of {@code head_dim} values (128 when the key is absent, as in
 * transformers' Qwen3Config, not hidden_size / heads), an RMS norm on each head's q and k
 * ({@code q_norm}, {@code k_norm}) before rotary positions of base {@code rope_theta}; SwiGLU,
 * {@code down_proj(silu(gate_proj(x)) ⊙ up_proj(x))}; biases on q, k, v only where
 * {@code attention_bias}; a final {@code norm}. Checkpoints of {@code Qwen3ForCausalLM} put the
 * model under {@code model.} (its {@code lm_head} is left out and listed);
 * {@code Qwen3ForSequenceClassification} (the converted Qwen3-Reranker) adds its score layer
 * ({@link DecoderFamily}). perplexity's pplx-embed-v1 ({@code model_type}
 * bidirectional_pplx_qwen3, its own Qwen3Model subclass named by {@code auto_map}) runs these
 * layers bidirectionally whatever its flags say; jina-embeddings-v5-text-small ({@code model_type}
 * jina_embeddings_v5, {@code JinaEmbeddingsV5Model}) runs them causally, as Qwen3 does, with the
 * adapter of its task merged ({@link TaskAdapter}). Refused: sliding
 * windows and rope scalings, which the embedding models do not use.
 */
final class Qwen3 extends DecoderFamily {
  /** perplexity's pplx-embed-v1: Qwen3's layers attending both ways, by its own code. */
  private static final String BIDIRECTIONAL_TYPE = "bidirectional_pplx_qwen3";
  /**
   * jina-embeddings-v5-text-small: Qwen3's layers as they are (its config class subclasses
   * Qwen3Config unchanged), its task adapters under {@code adapters/} ({@code model.task}).
   */
  private static final String JINA_V5_TYPE = "jina_embeddings_v5";

  Qwen3() {
    super(DecoderFamily.names("qwen3", List.of("qwen3", BIDIRECTIONAL_TYPE, JINA_V5_TYPE),
        "Qwen3-Embedding-0.6B, 4B, 8B; pplx-embed-v1; jina-embeddings-v5-text-small"),
        new DecoderTensors.Parts(false, true));
  }

  /** pplx-embed-v1's and jina-embeddings-v5's own classes, which their model_type names. */
  @Override
  public boolean implementsCustomCode(JsonNode config) {
    return pplx(config) || config.path("model_type").asText("").equals(JINA_V5_TYPE);
  }

  private static boolean pplx(JsonNode config) {
    return config.path("model_type").asText("").equals(BIDIRECTIONAL_TYPE);
  }

  @Override
  public Architecture architecture(JsonNode config, Path file) {
    if (config.path("use_sliding_window").asBoolean(false)) {
      throw new WeightsException(file + ": use_sliding_window = true is not supported (false)");
    }
    DecoderTensors.refuseSet(config, "rope_scaling", file);
    JsonNode parameters = config.path("rope_parameters");
    String ropeType = parameters.path("rope_type").asText("default");
    if (!ropeType.equals("default")) {
      throw new WeightsException(file + ": rope_parameters.rope_type '" + ropeType + "' is not "
          + "supported (default)");
    }
    double theta = ModelFamily.positiveNumber(config, "rope_theta",
        ModelFamily.positiveNumber(parameters, "rope_theta", 1_000_000, file), file);
    int layers = ModelFamily.positiveInt(config, "num_hidden_layers", file);
    int heads = ModelFamily.positiveInt(config, "num_attention_heads", file);
    int kvHeads = DecoderTensors.kvHeads(config, heads, 32, file);
    int headWidth = DecoderTensors.headWidth(config, heads, 128, file);
    List<LayerAttention> attention = new ArrayList<>();
    for (int i = 0; i < layers; i++) {
      attention.add(new LayerAttention(Window.GLOBAL, RotaryPositions.halves(theta)));
    }
    return Architecture.encoder(ModelFamily.activation(config, "hidden_act", file),
            ModelFamily.positiveNumber(config, "rms_norm_eps", 1e-6, file))
        .preNormWithFinalNorm().gated(true).rmsNorm()
        .projectionBias(config.path("attention_bias").asBoolean(false)).feedForwardBias(false)
        .layers(attention).attention(AttentionHeads.grouped(kvHeads, headWidth))
        .causal(!pplx(config) && !config.path("use_bidirectional_attention").asBoolean(false))
        .build();
  }
}
