package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.AttentionHeads;
import io.corpus.encoder.model.LayerAttention;
import io.corpus.encoder.model.RotaryPositions;
import io.corpus.encoder.model.Window;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;

/**
 * Qwen2 (gte-Qwen2-1.5B-instruct and 7B, mxbai-rerank-v2's base), as {@code modeling_qwen2.py}
 * computes it: token embeddings (no norm, no positions); pre-norm layers with RMSNorm
 * ({@code input_layernorm}, {@code post_attention_layernorm}, eps {@code rms_norm_eps});
 * {@code num_key_value_heads} KV heads shared by groups of query heads, heads of
 * hidden_size / num_attention_heads values; biases on q, k and v (none on o_proj); rotary
 * positions of base {@code rope_theta}; SwiGLU; a final {@code norm}. Causal unless config.json
 * says {@code "is_causal": false}, as gte-Qwen2's does (its own {@code modeling_qwen.Qwen2Model},
 * named by {@code auto_map}, attends both ways; the job carries that). Its tokenizer appends
 * {@code <|endoftext|>} from tokenizer_config.json's {@code add_eos_token}
 * (text/TokenizerConfig). Refused: sliding windows and rope scalings,
 * which the embedding models do not use.
 */
final class Qwen2 extends DecoderFamily {
  Qwen2() {
    super(DecoderFamily.names("qwen2", List.of("qwen2"),
        "gte-Qwen2-1.5B-instruct, gte-Qwen2-7B-instruct").withCustomCode("Qwen2"),
        new DecoderTensors.Parts(false, false));
  }

  @Override
  public Architecture architecture(JsonNode config, Path file) {
    if (config.path("use_sliding_window").asBoolean(false)) {
      throw new WeightsException(file + ": use_sliding_window = true is not supported (false)");
    }
    DecoderTensors.refuseSet(config, "rope_scaling", file);
    int layers = ModelFamily.positiveInt(config, "num_hidden_layers", file);
    int heads = ModelFamily.positiveInt(config, "num_attention_heads", file);
    int kvHeads = DecoderTensors.kvHeads(config, heads, 32, file);
    LayerAttention rotary = new LayerAttention(Window.GLOBAL,
        RotaryPositions.halves(ModelFamily.positiveNumber(config, "rope_theta", 10_000, file)));
    return Architecture.encoder(ModelFamily.activation(config, "hidden_act", file),
            ModelFamily.positiveNumber(config, "rms_norm_eps", 1e-6, file))
        .preNormWithFinalNorm().gated(true).rmsNorm().projectionBias(true).feedForwardBias(false)
        .layers(Collections.nCopies(layers, rotary))
        .attention(AttentionHeads.grouped(kvHeads,
            DecoderTensors.headWidth(config, heads, 0, file)))
        .causal(config.path("is_causal").asBoolean(true)).build();
  }
}
