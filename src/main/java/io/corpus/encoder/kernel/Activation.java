package io.corpus.encoder.kernel;

import io.corpus.encoder.common.ConfigName;
import org.apache.commons.math3.special.Erf;

/** Feed-forward activations, named as in the configuration ({@code model.activation}). */
public enum Activation implements ConfigName {
  /** max(0, x). */
  RELU("relu"),
  /** x·Φ(x) with the exact normal CDF: 0.5·x·(1 + erf(x/√2)), PyTorch's default GELU. */
  GELU("gelu"),
  /** 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), PyTorch's {@code approximate="tanh"}. */
  GELU_TANH("gelu-tanh"),
  /** x·σ(x) = x / (1 + e^(−x)), the gate of SwiGLU (NomicBERT, GTE, Qwen). */
  SILU("silu");

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

  /** act(v) in double, by the formula itself (Commons Math's erf): the references' activation. */
  public double exact(double v) {
    return switch (this) {
      case RELU -> Math.max(0, v);
      case GELU -> 0.5 * v * (1 + Erf.erf(v / Math.sqrt(2)));
      case GELU_TANH -> 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI)
          * (v + 0.044715 * v * v * v)));
      case SILU -> v / (1 + Math.exp(-v));
    };
  }

  /** Each of {@code rows} rows of x := act(row + bias), in place; rows are bias.length wide. */
  public void applyWithBias(float[] x, int rows, float[] bias) {
    Elementwise.INSTANCE.biasActivation(this, x, rows, bias);
  }
}
