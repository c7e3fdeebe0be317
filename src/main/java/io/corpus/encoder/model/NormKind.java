package io.corpus.encoder.model;

import io.corpus.encoder.kernel.LayerNorm;
import io.corpus.encoder.kernel.RmsNorm;

/** How a model's layers normalize: LayerNorm (BERT and its kin) or RMSNorm (Qwen, Gemma). */
public enum NormKind {
  /** (x − mean) / sqrt(var + eps) · γ + β. */
  LAYER,
  /** x / sqrt(mean(x²) + eps) · γ; no shift. */
  RMS;

  /** {@code rows} rows of width E from x into y (x == y allowed). */
  void apply(float[] x, int xOffset, float[] y, int yOffset, int rows, float[] gamma,
      float[] beta, float eps) {
    if (this == LAYER) {
      LayerNorm.apply(x, xOffset, y, yOffset, rows, gamma, beta, eps);
    } else {
      RmsNorm.apply(x, xOffset, y, yOffset, rows, gamma.length, gamma, eps);
    }
  }

  /** One row in double, for the reference encoder. */
  double[] exact(double[] x, float[] gamma, float[] beta, double eps) {
    return this == LAYER ? LayerNorm.exact(x, gamma, beta, eps) : RmsNorm.exact(x, gamma, eps);
  }
}
