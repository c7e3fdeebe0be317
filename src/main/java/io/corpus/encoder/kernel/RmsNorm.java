package io.corpus.encoder.kernel;

/**
 * Root-mean-square normalization over a vector: {@code y = x / sqrt(mean(x²) + eps) · γ}, as
 * Qwen's and Gemma's {@code RMSNorm} compute it (Gemma's (1 + w) is folded into γ when its
 * weights are read). The root is taken in double.
 */
public final class RmsNorm {
  private RmsNorm() {}

  /** One row in double, as the formula reads: the references' RMS norm. Returns a new row. */
  public static double[] exact(double[] x, float[] gamma, double eps) {
    double squares = 0;
    for (double v : x) {
      squares += v * v;
    }
    double inverse = 1 / Math.sqrt(squares / x.length + eps);
    double[] y = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      y[i] = x[i] * inverse * gamma[i];
    }
    return y;
  }

  /**
   * Normalizes {@code rows} vectors of width {@code gamma.length}, the r-th at
   * {@code xOffset + r · stride}, into y at {@code yOffset + r · stride} (x == y allowed).
   */
  public static void apply(float[] x, int xOffset, float[] y, int yOffset, int rows, int stride,
      float[] gamma, float eps) {
    Elementwise.INSTANCE.rmsNorm(x, xOffset, y, yOffset, rows, stride, gamma, eps);
  }
}
