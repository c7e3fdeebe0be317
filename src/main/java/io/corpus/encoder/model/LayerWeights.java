package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.kernel.Precision;
import java.io.Serializable;

/**
 * One encoder layer's parameters, PyTorch layout (out, in). A family whose checkpoints have no
 * bias somewhere (ModernBERT) gets zero vectors there, so every bias is present; a part a layer
 * does not have is a variant that says so ({@link Norm#none()}, {@link RelativePositions#NONE}),
 * never null. The weight matrices are held in the precision their products run in
 * ({@link #in}); the vectors stay float32.
 *
 * @param inProjWeight (3E, E): rows q, then k, then v
 * @param inProjBias (3E)
 * @param outProjWeight (E, E)
 * @param outProjBias (E)
 * @param attentionNorm (E) the norm around attention; none when the layer has none
 *     (ModernBERT's first layer feeds its input to attention as it is)
 * @param feedForward plain, gated, or a mixture of experts (nomic-embed-text-v2-moe)
 * @param feedForwardNorm (E) the norm around the feed-forward
 * @param queryNorm (D) an RMS norm's scale applied to each head's q before rotary positions
 *     (Qwen3, Gemma3), or none
 * @param keyNorm (D) the same for each KV head's k, there exactly when queryNorm is
 * @param attentionOutputNorm (E) the norm of attention's output before it joins the residual
 *     (Gemma3's post_attention_layernorm), or none
 * @param feedForwardOutputNorm (E) the same of the feed-forward's output
 *     (post_feedforward_layernorm), there exactly when attentionOutputNorm is
 * @param relative the layer's projections of every relative distance, for
 *     {@link DisentangledPositions} (DeBERTa), or {@link RelativePositions#NONE}
 */
public record LayerWeights(
    Matrix inProjWeight, float[] inProjBias,
    Matrix outProjWeight, float[] outProjBias,
    Norm attentionNorm, FeedForward feedForward, Norm feedForwardNorm,
    Norm queryNorm, Norm keyNorm, Norm attentionOutputNorm, Norm feedForwardOutputNorm,
    RelativePositions relative) implements Serializable {

  /**
   * The 2S relative embeddings projected as keys and as queries, each (2S, H·D), biases added:
   * what DeBERTa's c2p and p2c terms read; a term the model has not, an empty table.
   *
   * @param keys for content-to-position, empty without that term
   * @param queries for position-to-content, empty without that term
   */
  public record RelativePositions(float[] keys, float[] queries) implements Serializable {
    /** No relative positions. */
    public static final RelativePositions NONE =
        new RelativePositions(new float[0], new float[0]);
  }

  /**
   * A layer said by name, for a model of width E and feed-forward width F; a bias or a norm's
   * shift left out is zeros (the checkpoint has none), a norm left out is absent.
   */
  public static Builder builder(int width, int ffnWidth) {
    return new Builder(width, ffnWidth);
  }

  /** See {@link #builder}. */
  public static final class Builder {
    private final int width;
    private final int ffnWidth;
    private Matrix qkv;
    private float[] qkvBias;
    private Matrix out;
    private float[] outBias;
    private FeedForward feedForward;
    private Norm attentionNorm = Norm.none();
    private Norm feedForwardNorm = Norm.none();
    private Norm queryNorm = Norm.none();
    private Norm keyNorm = Norm.none();
    private Norm attentionOutputNorm = Norm.none();
    private Norm feedForwardOutputNorm = Norm.none();
    private RelativePositions relative = RelativePositions.NONE;

    private Builder(int width, int ffnWidth) {
      this.width = width;
      this.ffnWidth = ffnWidth;
    }

    /** The fused q, k, v projection (rows q, then k, then v) and the output projection. */
    public Builder attention(float[] qkvWeight, float[] outWeight) {
      return attention(Matrix.of(qkvWeight, qkvWeight.length / width, width),
          Matrix.of(outWeight, width, outWeight.length / width));
    }

    /** {@link #attention(float[], float[])}, the matrices in the form the checkpoint gave. */
    public Builder attention(Matrix qkvWeight, Matrix outWeight) {
      qkv = shaped("q, k, v projection", qkvWeight, qkvWeight.rows(), width);
      out = shaped("output projection", outWeight, width, outWeight.cols());
      return attentionBiases(new float[qkv.rows()], new float[width]);
    }

    public Builder attentionBiases(float[] qkvBias, float[] outBias) {
      this.qkvBias = qkvBias;
      this.outBias = outBias;
      return this;
    }

    /** A plain feed-forward: out(act(x·inᵀ + b)) + b. */
    public Builder feedForward(float[] in, float[] out) {
      return feedForward(new FeedForward.Plain(
          shaped("feed-forward input", Matrix.of(in, ffnWidth, width), ffnWidth, width),
          new float[ffnWidth],
          shaped("feed-forward output", Matrix.of(out, width, ffnWidth), width, ffnWidth),
          new float[width]));
    }

    /** The biases of the feed-forward's (activated) input and of its output. */
    public Builder feedForwardBiases(float[] inBias, float[] outBias) {
      return feedForward(feedForward instanceof FeedForward.Gated g
          ? new FeedForward.Gated(g.activated(), inBias, g.linear(), g.linearBias(), g.out(),
              outBias)
          : new FeedForward.Plain(plain().in(), inBias, plain().out(), outBias));
    }

    /** The bias of the feed-forward's output alone (its input has none). */
    public Builder feedForwardOutBias(float[] outBias) {
      return feedForward(feedForward instanceof FeedForward.Gated g
          ? new FeedForward.Gated(g.activated(), g.activatedBias(), g.linear(), g.linearBias(),
              g.out(), outBias)
          : new FeedForward.Plain(plain().in(), plain().inBias(), plain().out(), outBias));
    }

    /** The bias of a gated feed-forward's linear half. */
    public Builder gateBias(float[] bias) {
      FeedForward.Gated g = (FeedForward.Gated) feedForward;
      return feedForward(new FeedForward.Gated(g.activated(), g.activatedBias(), g.linear(),
          bias, g.out(), g.outBias()));
    }

    /** A gated feed-forward: down(act(x·activatedᵀ) ⊙ x·linearᵀ), as SwiGLU and GeGLU. */
    public Builder gatedFeedForward(float[] activated, float[] linear, float[] down) {
      return gatedFeedForward(Matrix.of(activated, ffnWidth, width),
          Matrix.of(linear, ffnWidth, width), Matrix.of(down, width, ffnWidth));
    }

    /** {@link #gatedFeedForward(float[], float[], float[])}, as the checkpoint gave them. */
    public Builder gatedFeedForward(Matrix activated, Matrix linear, Matrix down) {
      return feedForward(new FeedForward.Gated(
          shaped("feed-forward input", activated, ffnWidth, width), new float[ffnWidth],
          shaped("feed-forward gate", linear, ffnWidth, width), new float[ffnWidth],
          shaped("feed-forward output", down, width, ffnWidth), new float[width]));
    }

    /** A mixture of experts as the layer's feed-forward, in place of a dense one. */
    public Builder experts(Experts mixture) {
      if (mixture.bias().length != width) {
        throw new IllegalArgumentException("A layer of experts of width "
            + mixture.bias().length + " in a model of width " + width);
      }
      return feedForward(mixture);
    }

    private Builder feedForward(FeedForward part) {
      feedForward = part;
      return this;
    }

    private FeedForward.Plain plain() {
      return (FeedForward.Plain) feedForward;
    }

    /** The scale of the norm around attention and of the one around the feed-forward. */
    public Builder norms(float[] attentionScale, float[] feedForwardScale) {
      return norms(attentionScale, new float[width], feedForwardScale, new float[width]);
    }

    /** The norms around attention and the feed-forward, scales and shifts. */
    public Builder norms(float[] attentionScale, float[] attentionShift,
        float[] feedForwardScale, float[] feedForwardShift) {
      return norms(new Norm.Affine(attentionScale, attentionShift),
          new Norm.Affine(feedForwardScale, feedForwardShift));
    }

    /**
     * The norms around attention and the feed-forward; an attention norm of none: the layer
     * attends to its input as it is (ModernBERT's first layer).
     */
    public Builder norms(Norm attention, Norm feedForward) {
      attentionNorm = attention;
      feedForwardNorm = feedForward;
      return this;
    }

    /** Each head's q and k normalized by these (D) scales before rotary positions. */
    public Builder queryKeyNorms(float[] query, float[] key) {
      queryNorm = new Norm.Scale(query);
      keyNorm = new Norm.Scale(key);
      return this;
    }

    /** The scales of the norms on the attention's and the feed-forward's outputs. */
    public Builder postNorms(float[] attention, float[] feedForward) {
      attentionOutputNorm = new Norm.Scale(attention);
      feedForwardOutputNorm = new Norm.Scale(feedForward);
      return this;
    }

    /**
     * The relative embeddings projected as keys and queries, (2S, H·D) each, or empty where the
     * model has not that term.
     */
    public Builder relativePositions(float[] keys, float[] queries) {
      relative = new RelativePositions(keys, queries);
      return this;
    }

    /** The layer; an error if its attention, feed-forward or feed-forward norm is not said. */
    public LayerWeights build() {
      if (qkv == null || feedForward == null || !feedForwardNorm.present()) {
        throw new IllegalStateException("A layer needs its attention, its feed-forward and the "
            + "norm around it");
      }
      return new LayerWeights(qkv, qkvBias, out, outBias, attentionNorm, feedForward,
          feedForwardNorm, queryNorm, keyNorm, attentionOutputNorm, feedForwardOutputNorm,
          relative);
    }

    private static Matrix shaped(String what, Matrix m, int rows, int cols) {
      if (m.rows() != rows || m.cols() != cols) {
        throw new IllegalArgumentException("The " + what + " is (" + m.rows() + ", "
            + m.cols() + "), expected (" + rows + ", " + cols + ")");
      }
      return m;
    }
  }

  public LayerWeights {
    if (queryNorm.present() != keyNorm.present()
        || attentionOutputNorm.present() != feedForwardOutputNorm.present()) {
      throw new IllegalArgumentException("The q and k norms are both present or both absent, "
          + "and so are the norms of attention's and the feed-forward's outputs");
    }
  }

  /** This layer with its weight matrices in {@code precision}. */
  public LayerWeights in(Precision precision) {
    return new LayerWeights(inProjWeight.in(precision), inProjBias, outProjWeight.in(precision),
        outProjBias, attentionNorm, feedForward.in(precision), feedForwardNorm, queryNorm,
        keyNorm, attentionOutputNorm, feedForwardOutputNorm, relative);
  }

  /** E, the model width. */
  public int width() {
    return outProjBias.length;
  }

  /** F, the feed-forward width (of each expert, in a layer of experts). */
  public int ffnWidth() {
    return feedForward.ffnWidth();
  }

  /** Whether attention's and the feed-forward's outputs are normed before the residual. */
  public boolean normsOutputs() {
    return attentionOutputNorm.present();
  }
}
