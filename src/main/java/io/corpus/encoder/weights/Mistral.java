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
 * Mistral (e5-mistral-7b-instruct, SFR-Embedding-2_R, SFR-Embedding-Mistral), as
 * {@code modeling_mistral.py} computes it: token embeddings; pre-norm layers with RMSNorm
 * ({@code input_layernorm}, {@code post_attention_layernorm}, eps {@code rms_norm_eps});
 * causal attention over {@code num_key_value_heads} KV heads of {@code head_dim} values
 * (hidden_size / num_attention_heads when absent or null), no biases, rotary positions of base
 * {@code rope_theta}; a query sees the {@code sliding_window} keys up to itself (key j from query
 * i when i − W &lt; j ≤ i, transformers' mask; 4,096 when the key is absent, as in
 * MistralConfig), every earlier key when it is null; SwiGLU; a
 * final {@code norm}. e5-mistral's texts end in {@code </s>}: its tokenizer_config.json's
 * {@code add_eos_token} (text/TokenizerConfig). Refused: rope scalings
 * and a window of one key.
 */
final class Mistral extends DecoderFamily {
  /** MistralConfig's sliding_window when config.json has no such key. */
  private static final int ABSENT_WINDOW = 4096;

  Mistral() {
    super(DecoderFamily.names("mistral", List.of("mistral"),
        "e5-mistral-7b-instruct, SFR-Embedding-2_R"), new DecoderTensors.Parts(false, false));
  }

  @Override
  public Architecture architecture(JsonNode config, Path file) {
    return layers(config, file, true);
  }

  /**
   * Mistral's layers as config.json describes them; {@code causal} false: every query sees
   * every key that is not padding, and no window applies (NV-Embed's bidirectional Mistral,
   * whose eager attention takes its padding mask alone whatever {@code sliding_window} says).
   */
  static Architecture layers(JsonNode config, Path file, boolean causal) {
    DecoderTensors.refuseSet(config, "rope_scaling", file);
    int layers = ModelFamily.positiveInt(config, "num_hidden_layers", file);
    int heads = ModelFamily.positiveInt(config, "num_attention_heads", file);
    int kvHeads = DecoderTensors.kvHeads(config, heads, 8, file);
    Window window = Window.GLOBAL;
    if (causal && (!config.has("sliding_window") || !config.get("sliding_window").isNull())) {
      int keys = config.has("sliding_window")
          ? ModelFamily.positiveInt(config, "sliding_window", file) : ABSENT_WINDOW;
      if (keys < 2) {
        throw new WeightsException(file + ": sliding_window = " + keys + " is not supported "
            + "(at least 2 keys, or null)");
      }
      window = Window.within(keys - 1);
    }
    LayerAttention attention = new LayerAttention(window,
        RotaryPositions.halves(ModelFamily.positiveNumber(config, "rope_theta", 10_000, file)));
    return Architecture.encoder(ModelFamily.activation(config, "hidden_act", file),
            ModelFamily.positiveNumber(config, "rms_norm_eps", 1e-6, file))
        .preNormWithFinalNorm().gated(true).rmsNorm().projectionBias(false).feedForwardBias(false)
        .layers(Collections.nCopies(layers, attention))
        .attention(AttentionHeads.grouped(kvHeads,
            DecoderTensors.headWidth(config, heads, 0, file)))
        .causal(causal).build();
  }
}
