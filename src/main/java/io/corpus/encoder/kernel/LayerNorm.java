package io.corpus.encoder.kernel;

/**
 * Layer normalization over the last dimension: {@code y = (x − mean) / sqrt(var + eps) · γ + β},
 * with the biased variance (divide by the width), as PyTorch's {@code nn.LayerNorm}.
 */
public final class LayerNorm {
  private LayerNorm() {}

  /** Normalizes {@code rows} rows of width {@code gamma.length}, from x into y (x == y allowed). */
  public static void apply(float[] x, int xOffset, float[] y, int yOffset, int rows,
      float[] gamma, float[] beta, float eps) {
    Elementwise.INSTANCE.layerNorm(x, xOffset, y, yOffset, rows, gamma, beta, eps);
  }
}
