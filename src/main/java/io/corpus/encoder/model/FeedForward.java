package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.kernel.Precision;
import java.io.Serializable;

/**
 * A layer's feed-forward: plain, gated (SwiGLU, GeGLU) or a mixture of {@link Experts}. Its
 * matrices are held in the precision their products run in; its vectors stay float32.
 */
public sealed interface FeedForward extends Serializable
    permits FeedForward.Plain, FeedForward.Gated, Experts {

  /** F, the hidden width (of each expert, in a mixture). */
  int ffnWidth();

  /** The rows its first product takes at a time ({@link Matrix#blockRows}). */
  int blockRows();

  /** This feed-forward with its matrices in {@code precision}. */
  FeedForward in(Precision precision);

  /**
   * out(act(x·inᵀ + inBias)) + outBias.
   *
   * @param in (F, E), {@code linear1}
   * @param inBias (F)
   * @param out (E, F), {@code linear2}
   * @param outBias (E)
   */
  record Plain(Matrix in, float[] inBias, Matrix out, float[] outBias) implements FeedForward {
    @Override
    public int ffnWidth() {
      return in.rows();
    }

    @Override
    public int blockRows() {
      return in.blockRows();
    }

    @Override
    public Plain in(Precision precision) {
      return new Plain(in.in(precision), inBias, out.in(precision), outBias);
    }
  }

  /**
   * out(act(x·activatedᵀ + activatedBias) ⊙ (x·linearᵀ + linearBias)) + outBias.
   *
   * @param activated (F, E), the half activated
   * @param activatedBias (F)
   * @param linear (F, E), the gate
   * @param linearBias (F)
   * @param out (E, F)
   * @param outBias (E)
   */
  record Gated(Matrix activated, float[] activatedBias, Matrix linear, float[] linearBias,
      Matrix out, float[] outBias) implements FeedForward {
    @Override
    public int ffnWidth() {
      return activated.rows();
    }

    @Override
    public int blockRows() {
      return activated.blockRows();
    }

    @Override
    public Gated in(Precision precision) {
      return new Gated(activated.in(precision), activatedBias, linear.in(precision), linearBias,
          out.in(precision), outBias);
    }
  }
}
