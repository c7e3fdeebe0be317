package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.ExpertLayers;
import io.corpus.encoder.model.ExpertWeights;
import io.corpus.encoder.model.Experts;
import io.corpus.encoder.model.LayerAttention;
import io.corpus.encoder.model.LayerWeights;
import io.corpus.encoder.model.RotaryPositions;
import io.corpus.encoder.model.Window;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * NomicBERT (nomic-embed-text-v1 and v1.5), as its own {@code modeling_hf_nomic_bert.py}
 * computes it, which the job carries instead of running: config.json names sizes GPT-2's way
 * ({@code n_layer}, {@code n_embd}, {@code n_head}, {@code n_inner}, {@code n_positions}); word and
 * token-type embeddings, then {@code emb_ln} (positions are rotary); post-norm layers (norm1 after
 * attention, norm2 after the feed-forward) with a fused {@code attn.Wqkv} and
 * {@code attn.out_proj},
 * rotary positions of base {@code rotary_emb_base} on the first {@code rotary_emb_fraction} of each
 * head, halves or interleaved pairs ({@code rotary_emb_interleaved}); the feed-forward is SwiGLU,
 * {@code fc2(fc11(x) ⊙ silu(fc12(x)))}, for {@code activation_function} swiglu, else
 * {@code fc2(act(fc1(x)))}; biases where {@code qkv_proj_bias}, {@code mlp_fc1_bias},
 * {@code mlp_fc2_bias} say. Its {@code auto_map} (custom code named NomicBert…) is recognized;
 * nomic-embed-text-v2-moe's layers of experts ({@code moe_every_n_layers}: {@link Experts}) are
 * read in MegaBlocks' layout. What the job does not implement is refused: pre-norm, parallel
 * blocks, RMSNorm, shared or gated experts, causal attention, rotary scaling.
 */
final class NomicBert extends NamedEncoder {
  private static final String LAYERS = "encoder.layers.";

  NomicBert() {
    super(new Names("nomic_bert", List.of("nomic_bert"),
        "nomic-embed-text-v1, v1.5, v2-moe", "bert.", LAYERS,
        List.of("embeddings.", "emb_ln.", "encoder."))
        .withCustomCode("NomicBert"), EmbeddingNames.NOMIC, EncoderLayerNames.NOMIC);
  }

  @Override
  public Shape shape(JsonNode config, Path file) {
    int width = ModelFamily.positiveInt(config, "n_embd", file);
    return new Shape(ModelFamily.positiveInt(config, "n_layer", file), width,
        ModelFamily.positiveInt(config, "n_head", file),
        ModelFamily.given(config, "n_inner").isEmpty() ? 4 * width
            : ModelFamily.positiveInt(config, "n_inner", file),
        ModelFamily.positiveInt(config, "n_positions", file));
  }

  @Override
  public Architecture architecture(JsonNode config, Path file) {
    for (String key : List.of("prenorm", "parallel_block", "use_rms_norm", "causal")) {
      if (config.path(key).asBoolean(false)) {
        throw new WeightsException(file + ": " + key + " = true is not supported (false)");
      }
    }
    for (String key : List.of("rotary_scaling_factor", "rotary_emb_scale_base")) {
      if (ModelFamily.given(config, key).isPresent()) {
        throw new WeightsException(file + ": " + key + " = " + config.get(key) + " is not "
            + "supported (null: the rotary positions as trained)");
      }
    }
    double fraction = config.path("rotary_emb_fraction").asDouble(0);
    if (!(fraction > 0 && fraction <= 1)) {
      throw new WeightsException(file + ": rotary_emb_fraction = "
          + config.get("rotary_emb_fraction") + " is not supported (above 0, at most 1: "
          + "learned positions are not run)");
    }
    RotaryPositions.Rotated rotary = new RotaryPositions.Rotated(
        ModelFamily.positiveNumber(config, "rotary_emb_base", 10_000, file),
        fraction, config.path("rotary_emb_interleaved").asBoolean(false));
    List<LayerAttention> layers = new ArrayList<>();
    int count = ModelFamily.positiveInt(config, "n_layer", file);
    for (int i = 0; i < count; i++) {
      layers.add(new LayerAttention(Window.GLOBAL, rotary));
    }
    Activation activation = activation(config, file);
    return Architecture.encoder(activation,
            ModelFamily.positiveNumber(config, "layer_norm_epsilon", 1e-5, file))
        .gated(activation == Activation.SILU)   // swiglu
        .projectionBias(config.path("qkv_proj_bias").asBoolean(true))
        .feedForwardBias(config.path("mlp_fc1_bias").asBoolean(true)).layers(layers)
        .experts(experts(config, file)).build();
  }

  /**
   * nomic-embed-text-v2-moe's mixtures: {@code moe_every_n_layers}, {@code num_experts},
   * {@code moe_top_k}, {@code moe_normalize_expert_weights} (false or null: none; true: 1; a
   * number: that p), each expert a plain feed-forward ({@code activation_function} not swiglu).
   */
  private static ExpertLayers experts(JsonNode config, Path file) {
    if (ModelFamily.given(config, "moe_every_n_layers").map(n -> n.asInt(0)).orElse(0) == 0) {
      return ExpertLayers.NONE;
    }
    int n = ModelFamily.positiveInt(config, "moe_every_n_layers", file);
    if (config.path("activation_function").asText("gelu").equals("swiglu")) {
      throw new WeightsException(file + ": activation_function swiglu with moe_every_n_layers = "
          + n + " is not supported (experts of a plain feed-forward: gelu, gelu_new, relu)");
    }
    if (config.path("num_shared_experts").asInt(0) != 0) {
      throw new WeightsException(file + ": num_shared_experts = "
          + config.get("num_shared_experts") + " is not supported (0)");
    }
    int count = ModelFamily.positiveInt(config, "num_experts", file);
    int topK = ModelFamily.positiveInt(config, "moe_top_k", file);
    if (topK > count) {
      throw new WeightsException(file + ": moe_top_k = " + topK + " of num_experts = " + count
          + " is not supported (at most the experts)");
    }
    return new ExpertLayers.Every(n, count, topK, expertWeights(config, file));
  }

  /**
   * {@code moe_normalize_expert_weights} as MegaBlocks reads it, by Python's truth: absent, null,
   * false or 0 takes the weights as routed; true divides them by their 1-norm, a positive number
   * p by their p-norm; anything else is refused.
   */
  private static ExpertWeights expertWeights(JsonNode config, Path file) {
    JsonNode normalize = config.path("moe_normalize_expert_weights");
    if (normalize.isMissingNode() || normalize.isNull()
        || normalize.isBoolean() && !normalize.asBoolean()
        || normalize.isNumber() && normalize.asDouble() == 0) {
      return ExpertWeights.ROUTED;
    }
    if (normalize.isBoolean()) {
      return new ExpertWeights.PNorm(1);
    }
    if (!normalize.isNumber() || !(normalize.asDouble() > 0)
        || Double.isInfinite(normalize.asDouble())) {
      throw new WeightsException(file + ": moe_normalize_expert_weights = " + normalize
          + " is not supported (false, null, true or a positive p)");
    }
    return new ExpertWeights.PNorm(normalize.asDouble());
  }

  /**
   * SwiGLU's gate (SiLU only ever gates here), or the plain feed-forward's activation; the two
   * feed-forward biases are both present or both absent.
   */
  private static Activation activation(JsonNode config, Path file) {
    if (config.path("mlp_fc1_bias").asBoolean(true) != config.path("mlp_fc2_bias")
        .asBoolean(true)) {
      throw new WeightsException(file + ": mlp_fc1_bias and mlp_fc2_bias differ, which is not "
          + "supported (both true or both false)");
    }
    String name = config.path("activation_function").asText("gelu");
    if (name.equals("swiglu")) {
      return Activation.SILU;
    }
    Activation plain = ModelFamily.activation(config, "activation_function", file);
    if (plain == Activation.SILU) {
      throw new WeightsException(file + ": activation_function '" + name + "' is not supported "
          + "(swiglu, gelu, gelu_new, relu)");
    }
    return plain;
  }

  @Override
  public LayerWeights layer(TensorNaming.TensorSource read, int i, ModelFolder model) {
    String p = layerPrefix(i);
    EncoderLayerNames names = model.architecture().gated() ? EncoderLayerNames.NOMIC_SWIGLU
        : EncoderLayerNames.NOMIC;
    if (model.architecture().experts() instanceof ExpertLayers.Every mixture && mixture.at(i)) {
      EncoderLayerNames.Reader reader = names.reader(read, p, model);
      return reader.norms(reader.attention()).experts(experts(read, p + "mlp.", mixture,
          model.shape().width(), model.shape().ffnWidth())).build();
    }
    return names.read(read, p, model);
  }

  /**
   * A layer's experts as MegaBlocks stores them: {@code router.layer.weight} (X, E);
   * {@code experts.mlp.w1} and {@code w2}, both (X·F, E), expert e's the rows e·F..(e+1)·F, w1
   * applied transposed and w2 as it is (so its block is transposed here to the (E, F) every
   * second layer has); {@code experts.bias} (E).
   */
  private static Experts experts(TensorNaming.TensorSource read, String mlp,
      ExpertLayers.Every mixture, int e, int f) {
    int count = mixture.count();
    float[] router = read.take(mlp + "router.layer.weight", count, e);
    float[] w1 = read.take(mlp + "experts.mlp.w1", (long) count * f, e);
    float[] w2 = read.take(mlp + "experts.mlp.w2", (long) count * f, e);
    Matrix[] in = new Matrix[count];
    Matrix[] out = new Matrix[count];
    for (int x = 0; x < count; x++) {
      in[x] = Matrix.of(Arrays.copyOfRange(w1, x * f * e, (x + 1) * f * e), f, e);
      float[] transposed = new float[e * f];
      for (int r = 0; r < f; r++) {
        for (int c = 0; c < e; c++) {
          transposed[c * f + r] = w2[(x * f + r) * e + c];
        }
      }
      out[x] = Matrix.of(transposed, e, f);
    }
    return new Experts(router, in, out, read.take(mlp + "experts.bias", e), mixture.topK(),
        mixture.weighting());
  }
}
