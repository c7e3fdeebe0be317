package io.corpus.encoder.kernel;

/**
 * Layer normalization over the last dimension: {@code y = (x − mean) / sqrt(var + eps) · γ + β},
 * with the biased variance (divide by the width), as PyTorch's {@code nn.LayerNorm}.
 */
public final class LayerNorm {
  private LayerNorm() {}

  /**
   * Normalizes {@code rows} rows of width {@code gamma.length}, from x into y (x == y allowed).
   * Mean and variance are accumulated in double: two passes, no cancellation.
   */
  public static void apply(float[] x, int xOffset, float[] y, int yOffset, int rows,
      float[] gamma, float[] beta, float eps) {
    int width = gamma.length;
    for (int r = 0; r < rows; r++) {
      int xo = xOffset + r * width;
      int yo = yOffset + r * width;
      double sum = 0;
      for (int i = 0; i < width; i++) {
        sum += x[xo + i];
      }
      double mean = sum / width;
      double squares = 0;
      for (int i = 0; i < width; i++) {
        double d = x[xo + i] - mean;
        squares += d * d;
      }
      float inverseStd = (float) (1.0 / Math.sqrt(squares / width + eps));
      float m = (float) mean;
      for (int i = 0; i < width; i++) {
        y[yo + i] = (x[xo + i] - m) * inverseStd * gamma[i] + beta[i];
      }
    }
  }
}
