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
    switch (this) {
      case RELU -> {
        for (int i = offset; i < offset + length; i++) {
          x[i] = Math.max(x[i], 0f);
        }
      }
      case GELU -> Elementwise.INSTANCE.gelu(x, offset, length);
      case GELU_TANH -> Elementwise.INSTANCE.geluTanh(x, offset, length);
    }
  }
}
