package io.corpus.encoder.kernel;

/** Numerically stable softmax over one row, in place. */
public final class Softmax {
  private Softmax() {}

  /**
   * Softmax of {@code x[offset, offset + length)} in place. Entries equal to negative infinity are
   * masked: they get weight 0. A row with every entry masked becomes all zeros, never NaN.
   */
  public static void inPlace(float[] x, int offset, int length) {
    float max = Float.NEGATIVE_INFINITY;
    for (int i = offset; i < offset + length; i++) {
      max = Math.max(max, x[i]);
    }
    if (max == Float.NEGATIVE_INFINITY) {
      java.util.Arrays.fill(x, offset, offset + length, 0f);
      return;
    }
    double sum = 0;
    for (int i = offset; i < offset + length; i++) {
      float e = (float) Math.exp(x[i] - max);
      x[i] = e;
      sum += e;
    }
    float inverse = (float) (1.0 / sum);
    for (int i = offset; i < offset + length; i++) {
      x[i] *= inverse;
    }
  }
}
