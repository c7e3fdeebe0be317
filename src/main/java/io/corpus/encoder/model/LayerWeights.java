package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.kernel.Precision;
import java.io.Serializable;

/**
 * One encoder layer's parameters, PyTorch layout (out, in). A family whose checkpoints have no
 * bias somewhere (ModernBERT) gets zero vectors there, so every bias is present. The five weight
 * matrices are held in the precision their products run in ({@link #in}); the vectors stay
 * float32.
 *
 * @param inProjWeight (3E, E): rows q, then k, then v
 * @param inProjBias (3E)
 * @param outProjWeight (E, E)
 * @param outProjBias (E)
 * @param ffnInWeight (F, E), {@code linear1}; of a gated feed-forward, the half activated;
 *     null in a layer of experts
 * @param ffnInBias (F), null with ffnInWeight
 * @param ffnOutWeight (E, F), {@code linear2}, null with ffnInWeight
 * @param ffnOutBias (E), null with ffnInWeight
 * @param norm1Gamma (E), the norm around attention; null when the layer has none (ModernBERT's
 *     first layer feeds its input to attention as it is)
 * @param norm1Beta (E), null with norm1Gamma
 * @param norm2Gamma (E), the norm around the feed-forward
 * @param norm2Beta (E)
 * @param ffnGateWeight (F, E) the gate of a gated feed-forward, act(x·W1ᵀ + b1) ⊙ (x·Wgᵀ + bg);
 *     null for a plain one
 * @param ffnGateBias (F), null with ffnGateWeight
 * @param queryNorm (D) an RMS norm's scale applied to each head's q before rotary positions
 *     (Qwen3, Gemma3), or null
 * @param keyNorm (D) the same for each KV head's k, or null with queryNorm
 * @param postNorms the norms of the attention's and the feed-forward's outputs before they join
 *     the residual (Gemma3's post_attention_layernorm and post_feedforward_layernorm), or null
 * @param relative the layer's projections of every relative distance, for
 *     {@link DisentangledPositions} (DeBERTa), or null
 * @param experts the mixture of experts that is this layer's feed-forward
 *     (nomic-embed-text-v2-moe), or null for a dense one
 */
public record LayerWeights(
    Matrix inProjWeight, float[] inProjBias,
    Matrix outProjWeight, float[] outProjBias,
    Matrix ffnInWeight, float[] ffnInBias,
    Matrix ffnOutWeight, float[] ffnOutBias,
    float[] norm1Gamma, float[] norm1Beta,
    float[] norm2Gamma, float[] norm2Beta,
    Matrix ffnGateWeight, float[] ffnGateBias,
    float[] queryNorm, float[] keyNorm, PostNorms postNorms, RelativePositions relative,
    Experts experts) implements Serializable {

  /**
   * Norms of a sublayer's output, each (E): x + norm(attention(...)), x + norm(ffn(...)).
   *
   * @param attention the attention output's scale
   * @param feedForward the feed-forward output's scale
   */
  public record PostNorms(float[] attention, float[] feedForward) implements Serializable {}

  /**
   * The 2S relative embeddings projected as keys and as queries, each (2S, H·D), biases added:
   * what DeBERTa's c2p and p2c terms read.
   *
   * @param keys for content-to-position, or null without that term
   * @param queries for position-to-content, or null without that term
   */
  public record RelativePositions(float[] keys, float[] queries) implements Serializable {
    /** 2S, the rows of either table, for a context of width H·D. */
    public int rows(int inner) {
      return (keys != null ? keys : queries).length / inner;
    }
  }

  /**
   * A layer said by name, for a model of width E and feed-forward width F; a bias or a norm's
   * shift left out is zeros (the checkpoint has none), a norm or gate left out is absent.
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
    private Matrix ffnIn;
    private float[] ffnInBias;
    private Matrix ffnGate;
    private float[] ffnGateBias;
    private Matrix ffnOut;
    private float[] ffnOutBias;
    private float[] attentionNorm;
    private float[] attentionNormShift;
    private float[] feedForwardNorm;
    private float[] feedForwardNormShift;
    private float[] queryNorm;
    private float[] keyNorm;
    private PostNorms postNorms;
    private RelativePositions relative;
    private Experts experts;

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
      qkv = qkvWeight;
      out = outWeight;
      return this;
    }

    public Builder attentionBiases(float[] qkvBias, float[] outBias) {
      this.qkvBias = qkvBias;
      this.outBias = outBias;
      return this;
    }

    /** A plain feed-forward: out(act(x·inᵀ + b)) + b. */
    public Builder feedForward(float[] in, float[] out) {
      ffnIn = Matrix.of(in, ffnWidth, width);
      ffnOut = Matrix.of(out, width, ffnWidth);
      return this;
    }

    /** The biases of the feed-forward's (activated) input and of its output. */
    public Builder feedForwardBiases(float[] inBias, float[] outBias) {
      ffnInBias = inBias;
      ffnOutBias = outBias;
      return this;
    }

    /** The bias of the feed-forward's output alone (its input has none). */
    public Builder feedForwardOutBias(float[] outBias) {
      ffnOutBias = outBias;
      return this;
    }

    /** The bias of a gated feed-forward's linear half. */
    public Builder gateBias(float[] bias) {
      ffnGateBias = bias;
      return this;
    }

    /** A gated feed-forward: down(act(x·activatedᵀ) ⊙ x·linearᵀ), as SwiGLU and GeGLU. */
    public Builder gatedFeedForward(float[] activated, float[] linear, float[] down) {
      return gatedFeedForward(Matrix.of(activated, ffnWidth, width),
          Matrix.of(linear, ffnWidth, width), Matrix.of(down, width, ffnWidth));
    }

    /** {@link #gatedFeedForward(float[], float[], float[])}, as the checkpoint gave them. */
    public Builder gatedFeedForward(Matrix activated, Matrix linear, Matrix down) {
      ffnIn = activated;
      ffnGate = linear;
      ffnOut = down;
      return this;
    }

    /** The scale of the norm around attention and of the one around the feed-forward. */
    public Builder norms(float[] attentionScale, float[] feedForwardScale) {
      attentionNorm = attentionScale;
      feedForwardNorm = feedForwardScale;
      return this;
    }

    /**
     * The norms around attention and the feed-forward, scales and shifts; an attention scale of
     * null: the layer attends to its input as it is (ModernBERT's first layer).
     */
    public Builder norms(float[] attentionScale, float[] attentionShift,
        float[] feedForwardScale, float[] feedForwardShift) {
      attentionNorm = attentionScale;
      attentionNormShift = attentionShift;
      feedForwardNorm = feedForwardScale;
      feedForwardNormShift = feedForwardShift;
      return this;
    }

    /** Each head's q and k normalized by these (D) scales before rotary positions. */
    public Builder queryKeyNorms(float[] query, float[] key) {
      queryNorm = query;
      keyNorm = key;
      return this;
    }

    /** The scales of the norms on the attention's and the feed-forward's outputs. */
    public Builder postNorms(float[] attention, float[] feedForward) {
      postNorms = new PostNorms(attention, feedForward);
      return this;
    }

    /** The relative embeddings projected as keys and queries, (2S, H·D) each or null. */
    public Builder relativePositions(float[] keys, float[] queries) {
      relative = new RelativePositions(keys, queries);
      return this;
    }

    /** A mixture of experts as the layer's feed-forward, in place of a dense one. */
    public Builder experts(Experts mixture) {
      experts = mixture;
      return this;
    }

    public LayerWeights build() {
      shaped("q, k, v projection", qkv, qkv.rows(), width);
      shaped("output projection", out, width, out.cols());
      if (experts != null) {
        if (ffnIn != null || experts.bias().length != width) {
          throw new IllegalArgumentException("A layer of experts of width "
              + experts.bias().length + " has no dense feed-forward and the layer's width "
              + width);
        }
        return new LayerWeights(qkv, orZeros(qkvBias, qkv.rows()), out,
            orZeros(outBias, width), null, null, null, null, attentionNorm,
            attentionNorm == null ? null : orZeros(attentionNormShift, width), feedForwardNorm,
            orZeros(feedForwardNormShift, width), null, null, queryNorm, keyNorm, postNorms,
            relative, experts);
      }
      shaped("feed-forward input", ffnIn, ffnWidth, width);
      shaped("feed-forward output", ffnOut, width, ffnWidth);
      if (ffnGate != null) {
        shaped("feed-forward gate", ffnGate, ffnWidth, width);
      }
      return new LayerWeights(qkv, orZeros(qkvBias, qkv.rows()), out, orZeros(outBias, width),
          ffnIn, orZeros(ffnInBias, ffnWidth), ffnOut, orZeros(ffnOutBias, width),
          attentionNorm, attentionNorm == null ? null : orZeros(attentionNormShift, width),
          feedForwardNorm, orZeros(feedForwardNormShift, width), ffnGate,
          ffnGate == null ? null : orZeros(ffnGateBias, ffnWidth), queryNorm, keyNorm,
          postNorms, relative, null);
    }

    private static void shaped(String what, Matrix m, int rows, int cols) {
      if (m.rows() != rows || m.cols() != cols) {
        throw new IllegalArgumentException("The " + what + " is (" + m.rows() + ", "
            + m.cols() + "), expected (" + rows + ", " + cols + ")");
      }
    }

    private static float[] orZeros(float[] values, int length) {
      return values != null ? values : new float[length];
    }
  }

  public LayerWeights {
    if ((norm1Gamma == null) != (norm1Beta == null)
        || (ffnGateWeight == null) != (ffnGateBias == null)
        || (queryNorm == null) != (keyNorm == null)
        || (ffnInWeight == null) != (experts != null)) {
      throw new IllegalArgumentException("A norm's scale and shift, a gate's weight and bias, "
          + "and the q and k norms are both present or both absent; a layer's feed-forward is "
          + "dense or experts, not both");
    }
  }

  /** This layer with its five weight matrices in {@code precision}. */
  public LayerWeights in(Precision precision) {
    return new LayerWeights(inProjWeight.in(precision), inProjBias, outProjWeight.in(precision),
        outProjBias, ffnInWeight == null ? null : ffnInWeight.in(precision), ffnInBias,
        ffnOutWeight == null ? null : ffnOutWeight.in(precision), ffnOutBias,
        norm1Gamma, norm1Beta, norm2Gamma, norm2Beta,
        ffnGateWeight == null ? null : ffnGateWeight.in(precision), ffnGateBias, queryNorm,
        keyNorm, postNorms, relative, experts == null ? null : experts.in(precision));
  }

  /** Bytes the weights take. */
  public long bytes() {
    long bytes = 4 * vectorValues() + (experts == null ? 0 : experts.bytes());
    for (Matrix m : new Matrix[] {inProjWeight, outProjWeight, ffnInWeight, ffnOutWeight,
        ffnGateWeight}) {
      bytes += m == null ? 0 : m.bytes();
    }
    return bytes;
  }

  private long matrixValues() {
    long count = 0;
    for (Matrix m : new Matrix[] {inProjWeight, outProjWeight, ffnInWeight, ffnOutWeight,
        ffnGateWeight}) {
      count += m == null ? 0 : (long) m.rows() * m.cols();
    }
    return count;
  }

  /** E, the model width. */
  public int width() {
    return outProjBias.length;
  }

  /** F, the feed-forward width (of each expert, in a layer of experts). */
  public int ffnWidth() {
    return experts != null ? experts.ffnWidth() : ffnInBias.length;
  }

  /** Whether the feed-forward is gated. */
  public boolean gated() {
    return ffnGateWeight != null;
  }

  /** Whether each head's q and k are normalized before rotary positions. */
  public boolean normsQueriesAndKeys() {
    return queryNorm != null;
  }

  /** Whether attention reads the layer's input through a norm. */
  public boolean hasAttentionNorm() {
    return norm1Gamma != null;
  }

  /** Number of float parameters. */
  public long parameterCount() {
    return matrixValues() + vectorValues() + (experts == null ? 0 : experts.parameterCount());
  }

  /** Values of the layer's vectors (biases, norms, position projections). */
  private long vectorValues() {
    long count = 0;
    for (float[] a : new float[][] {inProjBias, outProjBias,
        ffnInBias, ffnOutBias, norm1Gamma, norm1Beta, norm2Gamma,
        norm2Beta, ffnGateBias, queryNorm, keyNorm,
        postNorms == null ? null : postNorms.attention(),
        postNorms == null ? null : postNorms.feedForward(),
        relative == null ? null : relative.keys(),
        relative == null ? null : relative.queries()}) {
      count += a == null ? 0 : a.length;
    }
    return count;
  }
}
