package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.LayerAttention;
import io.corpus.encoder.model.RotaryPositions;
import io.corpus.encoder.model.Window;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Jina's XLM-RoBERTa (jina-embeddings-v3), as its {@code modeling_xlm_roberta.py}
 * (jinaai/xlm-roberta-flash-implementation) computes it, which the job carries instead of
 * running: an {@code xlm-roberta} config.json whose {@code position_embedding_type} is rotary;
 * word embeddings plus the one token type's row, then {@code emb_ln} (no position table);
 * post-norm layers, {@code norm1(x + mixer(x))} then {@code norm2(x + mlp(x))}, the mixer a fused
 * {@code Wqkv} and {@code out_proj} with rotary positions of base {@code rotary_emb_base} on the
 * whole head (its halves rotated, from position 0), the feed-forward {@code fc2(act(fc1(x)))};
 * biases everywhere. The checkpoint of its {@code XLMRobertaLoRA} holds every linear and
 * embedding weight as a parametrization with one LoRA adapter per task
 * ({@code lora_adaptations}), merged at load by {@code model.task} ({@link StackedAdapters}).
 */
final class JinaXlmRoberta extends NamedEncoder {
  private static final String LAYERS = "encoder.layers.";

  JinaXlmRoberta() {
    super(new Names("jina-xlm-roberta", List.of("xlm-roberta"),
        "jina-embeddings-v3, its position_embedding_type rotary", "roberta.", LAYERS,
        List.of("embeddings.", "emb_ln.", "encoder."))
        .withCustomCode("XLMRoberta"),
        EmbeddingNames.JINA_XLM_ROBERTA, EncoderLayerNames.JINA_XLM_ROBERTA);
  }

  /** Whether an xlm-roberta config.json's positions are rotary. */
  static boolean rotary(JsonNode config) {
    return config.path("position_embedding_type").asText("").equals("rotary");
  }

  @Override
  public boolean reads(JsonNode config) {
    return super.reads(config) && rotary(config);
  }

  @Override
  public Architecture architecture(JsonNode config, Path file) {
    RotaryPositions.Rotated rotary = new RotaryPositions.Rotated(
        ModelFamily.positiveNumber(config, "rotary_emb_base", 10_000, file),
        1.0, false);
    List<LayerAttention> layers = new ArrayList<>();
    int count = ModelFamily.positiveInt(config, "num_hidden_layers", file);
    for (int i = 0; i < count; i++) {
      layers.add(new LayerAttention(Window.GLOBAL, rotary));
    }
    return Architecture.encoder(ModelFamily.activation(config, "hidden_act", file),
        ModelFamily.positiveNumber(config, "layer_norm_eps", 1e-5, file)).layers(layers).build();
  }

  /** Every token embedded with type 0, as the model's own code does when given no types. */
}
