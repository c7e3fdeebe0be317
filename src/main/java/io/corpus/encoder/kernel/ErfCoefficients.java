package io.corpus.encoder.kernel;

/** Abramowitz and Stegun 7.1.26: erf(x) ≈ 1 − t·(a1 + t(a2 + t(a3 + t(a4 + t·a5))))·e^(−x²),
 *  t = 1 / (1 + p·x), for x ≥ 0; absolute error below 1.5e-7. */
final class ErfCoefficients {
  static final float P = 0.3275911f;
  static final float A1 = 0.254829592f;
  static final float A2 = -0.284496736f;
  static final float A3 = 1.421413741f;
  static final float A4 = -1.453152027f;
  static final float A5 = 1.061405429f;

  private ErfCoefficients() {}

  static double poly(double t) {
    return t * (A1 + t * (A2 + t * (A3 + t * (A4 + t * A5))));
  }
}
