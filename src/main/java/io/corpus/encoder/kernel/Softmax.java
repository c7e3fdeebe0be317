package io.corpus.encoder.kernel;

/** Numerically stable softmax over one row, in place. */
public final class Softmax {
  private Softmax() {}

  /**
   * Softmax of {@code x[offset, offset + length)} in place. Entries equal to negative infinity are
   * masked: they get weight 0. A row with every entry masked becomes all zeros, never NaN.
   */
  public static void inPlace(float[] x, int offset, int length) {
    Elementwise.INSTANCE.softmax(x, offset, length);
  }
}
