package io.corpus.encoder.kernel;

/**
 * Layer normalization over the last dimension: {@code y = (x − mean) / sqrt(var + eps) · γ + β},
 * with the biased variance (divide by the width), as PyTorch's {@code nn.LayerNorm}.
 */
public final class LayerNorm {
  private LayerNorm() {}

  /**
   * One row normalized in double, as the formula reads (biased variance): the references' layer
   * norm. Returns a new row.
   */
  public static double[] exact(double[] x, float[] gamma, float[] beta, double eps) {
    int width = x.length;
    double mean = 0;
    for (double v : x) {
      mean += v / width;
    }
    double var = 0;
    for (double v : x) {
      var += (v - mean) * (v - mean) / width;
    }
    double[] y = new double[width];
    for (int i = 0; i < width; i++) {
      y[i] = (x[i] - mean) / Math.sqrt(var + eps) * gamma[i] + beta[i];
    }
    return y;
  }

  /** Normalizes {@code rows} rows of width {@code gamma.length}, from x into y (x == y allowed). */
  public static void apply(float[] x, int xOffset, float[] y, int yOffset, int rows,
      float[] gamma, float[] beta, float eps) {
    Elementwise.INSTANCE.layerNorm(x, xOffset, y, yOffset, rows, gamma, beta, eps);
  }
}
