package io.corpus.encoder.weights;

import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.LayerWeights;
import io.corpus.encoder.model.Norm;
import java.util.Arrays;

/**
 * Where an encoder's layer keeps its tensors after its prefix ({@code encoder.layer.i.}): its
 * q, k and v projections, separate or fused; the attention's output projection; the norm after
 * attention; the feed-forward, plain or gated; the norm after the feed-forward. Each name is
 * completed by {@code .weight} or {@code .bias}; which biases and norm shifts exist is the
 * architecture's to say ({@link Architecture#projectionBias()}, {@link
 * Architecture#feedForwardBias()}, the norms' shift). A family whose layers differ only in names
 * is one row; the layer is read once, here, as the decoders' are in {@link DecoderTensors}.
 *
 * @param projections q, k and v
 * @param out the attention's output projection, (E, H·D)
 * @param attentionNorm the norm after (or, pre-norm, before) attention, (E)
 * @param feedForward the feed-forward's tensors
 * @param outputNorm the norm around the feed-forward, (E)
 */
record EncoderLayerNames(Projections projections, String out, String attentionNorm,
    FeedForwardNames feedForward, String outputNorm) {

  /** Hugging Face BERT's ({@code modeling_bert.py}), RoBERTa's and their kin's. */
  static final EncoderLayerNames BERT = bertShaped(new Separate("attention.self.query",
      "attention.self.key", "attention.self.value"));
  /** DeBERTa-v2 and v3's ({@code modeling_deberta_v2.py}): BERT's, its projections renamed. */
  static final EncoderLayerNames DEBERTA = bertShaped(new Separate("attention.self.query_proj",
      "attention.self.key_proj", "attention.self.value_proj"));
  /** DistilBERT's ({@code modeling_distilbert.py}). */
  static final EncoderLayerNames DISTILBERT = new EncoderLayerNames(new Separate(
      "attention.q_lin", "attention.k_lin", "attention.v_lin"), "attention.out_lin",
      "sa_layer_norm", new Plain("ffn.lin1", "ffn.lin2"), "output_layer_norm");
  /** MPNet's ({@code modeling_mpnet.py}). */
  static final EncoderLayerNames MPNET = new EncoderLayerNames(new Separate("attention.attn.q",
      "attention.attn.k", "attention.attn.v"), "attention.attn.o", "attention.LayerNorm",
      new Plain("intermediate.dense", "output.dense"), "output.LayerNorm");
  /**
   * JinaBERT v2's ({@code jina-bert-implementation}): BERT's attention, {@code mlp.gated_layers}
   * rows gated then non-gated, without a bias.
   */
  static final EncoderLayerNames JINA_BERT = new EncoderLayerNames(BERT.projections(),
      BERT.out(), BERT.attentionNorm(), new Halves("mlp.gated_layers", true, false, "mlp.wo"),
      "mlp.layernorm");
  /** GTE's ({@code new-impl}): {@code mlp.up_gate_proj} rows up then gate, without a bias. */
  static final EncoderLayerNames GTE = new EncoderLayerNames(new Fused("attention.qkv_proj"),
      "attention.o_proj", "attn_ln", new Halves("mlp.up_gate_proj", false, false,
      "mlp.down_proj"), "mlp_ln");
  /** jina-embeddings-v3's ({@code XLMRobertaLoRA}, flash-attention names). */
  static final EncoderLayerNames JINA_XLM_ROBERTA = new EncoderLayerNames(
      new Fused("mixer.Wqkv"), "mixer.out_proj", "norm1", new Plain("mlp.fc1", "mlp.fc2"),
      "norm2");
  /** NomicBERT's with a plain feed-forward ({@code fc2(act(fc1(x)))}). */
  static final EncoderLayerNames NOMIC = new EncoderLayerNames(new Fused("attn.Wqkv"),
      "attn.out_proj", "norm1", new Plain("mlp.fc1", "mlp.fc2"), "norm2");
  /** NomicBERT's with swiglu, {@code fc2(silu(fc12(x)) ⊙ fc11(x))}. */
  static final EncoderLayerNames NOMIC_SWIGLU = new EncoderLayerNames(NOMIC.projections(),
      NOMIC.out(), NOMIC.attentionNorm(), new Gated("mlp.fc12", "mlp.fc11", "mlp.fc2"),
      NOMIC.outputNorm());
  /** ModernBERT's: {@code mlp.Wi} rows input (activated) then gate, with a bias when Wo has. */
  static final EncoderLayerNames MODERNBERT = new EncoderLayerNames(new Fused("attn.Wqkv"),
      "attn.Wo", "attn_norm", new Halves("mlp.Wi", true, true, "mlp.Wo"), "mlp_norm");

  private static EncoderLayerNames bertShaped(Projections projections) {
    return new EncoderLayerNames(projections, "attention.output.dense",
        "attention.output.LayerNorm", new Plain("intermediate.dense", "output.dense"),
        "output.LayerNorm");
  }

  /** Where q, k and v are. */
  sealed interface Projections permits Separate, Fused {}

  /** Three tensors, each (H·D, E). */
  record Separate(String query, String key, String value) implements Projections {}

  /** One (3·H·D, E) tensor, rows q then k then v. */
  record Fused(String qkv) implements Projections {}

  /** Where the feed-forward is. */
  sealed interface FeedForwardNames permits Plain, Halves, Gated {}

  /** {@code out(act(in(x)))}: in (F, E), out (E, F). */
  record Plain(String in, String out) implements FeedForwardNames {}

  /**
   * A gated feed-forward whose two inputs are the halves of one (2F, E) tensor.
   *
   * @param fused the tensor
   * @param activatedFirst whether its first F rows are the activated half
   * @param biased whether it has a bias (when the feed-forward's biases exist); the output's
   *     bias follows the architecture alone
   * @param out the output projection, (E, F)
   */
  record Halves(String fused, boolean activatedFirst, boolean biased, String out)
      implements FeedForwardNames {}

  /** {@code out(act(activated(x)) ⊙ linear(x))}, three tensors. */
  record Gated(String activated, String linear, String out) implements FeedForwardNames {}

  /**
   * The norm named {@code name} (completed by {@code .weight} and {@code .bias}), E wide: its
   * scale, and its shift where the architecture's norms have one ({@code shift}; zeros stand in
   * otherwise, as ModernBERT's {@code norm_bias} false).
   */
  static Norm.Affine norm(TensorNaming.TensorSource read, String name, int e, boolean shift) {
    return new Norm.Affine(read.take(name + ".weight", e),
        shift ? read.take(name + ".bias", e) : new float[e]);
  }

  /** A model folder's layer under {@code prefix}, as its architecture says. */
  LayerWeights read(TensorNaming.TensorSource source, String prefix, ModelFolder model) {
    return builder(source, prefix, model).build();
  }

  /**
   * A weights file's layer under {@code prefix}: heads splitting the width E, every bias and
   * norm shift present.
   */
  LayerWeights read(TensorNaming.TensorSource source, String prefix, int e, int f) {
    Reader reader = new Reader(source, prefix, e, f, e, true, true, true);
    return reader.norms(reader.feedForward(reader.attention())).build();
  }

  /** {@link #read}, unbuilt, for a family that adds to the layer. */
  LayerWeights.Builder builder(TensorNaming.TensorSource source, String prefix,
      ModelFolder model) {
    Reader reader = reader(source, prefix, model);
    return reader.norms(reader.feedForward(reader.attention()));
  }

  /** Reads the parts of the layer under {@code prefix} one by one. */
  Reader reader(TensorNaming.TensorSource source, String prefix, ModelFolder model) {
    int e = model.shape().width();
    Architecture architecture = model.architecture();
    return new Reader(source, prefix, e, model.shape().ffnWidth(),
        model.settings().headWidth(e) * model.shape().heads(), architecture.projectionBias(),
        architecture.feedForwardBias(), architecture.norms().shift());
  }

  /**
   * One layer's reading.
   *
   * @param inner H·D, the width of q, k and v
   */
  final class Reader {
    private final TensorNaming.TensorSource source;
    private final String prefix;
    private final int e;
    private final int f;
    private final int inner;
    private final boolean projectionBias;
    private final boolean feedForwardBias;
    private final boolean normShift;

    private Reader(TensorNaming.TensorSource source, String prefix, int e, int f, int inner,
        boolean projectionBias, boolean feedForwardBias, boolean normShift) {
      this.source = source;
      this.prefix = prefix;
      this.e = e;
      this.f = f;
      this.inner = inner;
      this.projectionBias = projectionBias;
      this.feedForwardBias = feedForwardBias;
      this.normShift = normShift;
    }

    /** A builder holding the attention's projections (and their biases). */
    LayerWeights.Builder attention() {
      LayerWeights.Builder layer = LayerWeights.builder(e, f)
          .attention(projections(".weight", e), take(out + ".weight", e, inner));
      if (projectionBias) {
        layer.attentionBiases(projections(".bias"), take(out + ".bias", e));
      }
      return layer;
    }

    /** q, k and v's weights (with {@code columns}) or biases (without), stacked. */
    private float[] projections(String suffix, long... columns) {
      if (projections instanceof Fused fused) {
        return take(fused.qkv() + suffix, shape(3L * inner, columns));
      }
      Separate separate = (Separate) projections;
      return TensorNaming.concat(take(separate.query() + suffix, shape(inner, columns)),
          take(separate.key() + suffix, shape(inner, columns)),
          take(separate.value() + suffix, shape(inner, columns)));
    }

    /** {@code layer} with the feed-forward (and its biases). */
    LayerWeights.Builder feedForward(LayerWeights.Builder layer) {
      if (feedForward instanceof Plain plain) {
        layer.feedForward(take(plain.in() + ".weight", f, e), take(plain.out() + ".weight", e, f));
        if (feedForwardBias) {
          layer.feedForwardBiases(take(plain.in() + ".bias", f), take(plain.out() + ".bias", e));
        }
      } else if (feedForward instanceof Gated gated) {
        layer.gatedFeedForward(take(gated.activated() + ".weight", f, e),
            take(gated.linear() + ".weight", f, e), take(gated.out() + ".weight", e, f));
        if (feedForwardBias) {
          layer.feedForwardBiases(take(gated.activated() + ".bias", f),
              take(gated.out() + ".bias", e)).gateBias(take(gated.linear() + ".bias", f));
        }
      } else {
        Halves halves = (Halves) feedForward;
        float[] both = take(halves.fused() + ".weight", 2L * f, e);
        int activated = halves.activatedFirst() ? 0 : f * e;
        int linear = f * e - activated;
        layer.gatedFeedForward(Arrays.copyOfRange(both, activated, activated + f * e),
            Arrays.copyOfRange(both, linear, linear + f * e), take(halves.out() + ".weight", e, f));
        if (feedForwardBias && halves.biased()) {
          float[] bias = take(halves.fused() + ".bias", 2L * f);
          int first = halves.activatedFirst() ? 0 : f;
          layer.feedForwardBiases(Arrays.copyOfRange(bias, first, first + f),
              take(halves.out() + ".bias", e)).gateBias(Arrays.copyOfRange(bias, f - first,
                  2 * f - first));
        } else if (feedForwardBias) {
          layer.feedForwardOutBias(take(halves.out() + ".bias", e));
        }
      }
      return layer;
    }

    /** {@code layer} with its two norms. */
    LayerWeights.Builder norms(LayerWeights.Builder layer) {
      return layer.norms(attentionNorm(), outputNorm());
    }

    Norm attentionNorm() {
      return norm(attentionNorm);
    }

    Norm outputNorm() {
      return norm(outputNorm);
    }

    private Norm norm(String name) {
      return EncoderLayerNames.norm(source, prefix + name, e, normShift);
    }

    private float[] take(String name, long... shape) {
      return source.take(prefix + name, shape);
    }

    private static long[] shape(long rows, long... columns) {
      long[] shape = new long[1 + columns.length];
      shape[0] = rows;
      System.arraycopy(columns, 0, shape, 1, columns.length);
      return shape;
    }
  }
}
