package io.corpus.encoder.kernel;

/**
 * erf(x) as a ratio of two polynomials, x·P(x²) / Q(x²) with x clamped to [−4, 4] (beyond it
 * erf is ±1 in float32), as Eigen and XLA compute it in float32: within 6.5e-8 of erf in exact
 * arithmetic, one division and no exponential, so a GELU costs about three quarters of the
 * Abramowitz-Stegun form's ({@link ErfCoefficients}). Used where the GELU's output is quantized
 * to 8 bits next (an int8 feed-forward): its step is four orders coarser than the difference.
 */
final class RationalErf {
  static final float A1 = -1.60960333262415e-02f;
  static final float A3 = -2.95459980854025e-03f;
  static final float A5 = -7.34990630326855e-04f;
  static final float A7 = -5.69250639462346e-05f;
  static final float A9 = -2.10102402082508e-06f;
  static final float A11 = 2.77068142495902e-08f;
  static final float A13 = -2.72614225801306e-10f;
  static final float B0 = -1.42647390514189e-02f;
  static final float B2 = -7.37332916720468e-03f;
  static final float B4 = -1.68282697438203e-03f;
  static final float B6 = -2.13374055278905e-04f;
  static final float B8 = -1.45660718464996e-05f;
  static final float LIMIT = 4f;
  static final float SQRT_HALF = (float) Math.sqrt(0.5);
  /**
   * Whether the polynomials use {@code Math.fma}: where the JVM has no fused multiply-add it is
   * 500 times slower than a product and a sum, and the vector form is not used there either.
   */
  private static final boolean FUSED = VectorApi.fusedMultiplyAdd();

  private RationalErf() {}

  /**
   * x·Φ(x) = 0.5·x·(1 + erf(x/√2)), lane for lane the arithmetic of the vector form (where the
   * JVM has fused multiply-add; else products and sums rounded apart, within 1e-7 the same).
   */
  static float gelu(float v) {
    float x = Math.min(LIMIT, Math.max(-LIMIT, v * SQRT_HALF));
    float x2 = x * x;
    float p = fma(fma(fma(fma(fma(fma(x2, A13, A11), x2, A9), x2, A7), x2, A5), x2, A3), x2, A1)
        * x;
    float q = fma(fma(fma(fma(x2, B8, B6), x2, B4), x2, B2), x2, B0);
    return v * 0.5f * (p / q + 1f);
  }

  private static float fma(float a, float b, float c) {
    return FUSED ? Math.fma(a, b, c) : a * b + c;
  }
}
