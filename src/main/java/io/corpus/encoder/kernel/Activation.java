package io.corpus.encoder.kernel;

import io.corpus.encoder.common.ConfigName;

/** Feed-forward activations, named as in the configuration ({@code model.activation}). */
public enum Activation implements ConfigName {
  /** max(0, x). */
  RELU("relu"),
  /** x·Φ(x) with the exact normal CDF: 0.5·x·(1 + erf(x/√2)), PyTorch's default GELU. */
  GELU("gelu"),
  /** 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), PyTorch's {@code approximate="tanh"}. */
  GELU_TANH("gelu-tanh");

  private static final float SQRT_HALF = (float) Math.sqrt(0.5);
  private static final double SQRT_2_OVER_PI = Math.sqrt(2.0 / Math.PI);

  private final String configName;

  Activation(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }

  /** The activation named {@code name} in the configuration; the error lists the allowed names. */
  public static Activation fromConfigName(String name) {
    return ConfigName.parse(values(), name, "activation");
  }

  /** Applies the activation in place to {@code x[offset, offset + length)}. */
  public void applyInPlace(float[] x, int offset, int length) {
    int end = offset + length;
    switch (this) {
      case RELU -> {
        for (int i = offset; i < end; i++) {
          x[i] = Math.max(x[i], 0f);
        }
      }
      case GELU -> {
        for (int i = offset; i < end; i++) {
          float v = x[i];
          x[i] = 0.5f * v * (1f + erf(v * SQRT_HALF));
        }
      }
      case GELU_TANH -> {
        for (int i = offset; i < end; i++) {
          double v = x[i];
          x[i] = (float) (0.5 * v * (1 + Math.tanh(SQRT_2_OVER_PI * (v + 0.044715 * v * v * v))));
        }
      }
    }
  }

  /**
   * The error function to float precision: Abramowitz and Stegun 7.1.26 (absolute error below
   * 1.5e-7), evaluated in double. Java has no {@code erf}; the reference encoder checks this one
   * against Commons Math's.
   */
  static float erf(float x) {
    double ax = Math.abs(x);
    double t = 1.0 / (1.0 + 0.3275911 * ax);
    double poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741
        + t * (-1.453152027 + t * 1.061405429))));
    double y = 1.0 - poly * Math.exp(-ax * ax);
    return (float) (x < 0 ? -y : y);
  }
}
