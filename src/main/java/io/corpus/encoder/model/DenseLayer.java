package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * A sentence-transformers {@code Dense} module after pooling: {@code y = act(W·x + b)}, computed
 * in double per pooled vector (EmbeddingGemma's 768 → 3072 → 768, LaBSE's tanh projection).
 *
 * @param weight W (out, in), row-major as PyTorch stores {@code linear.weight}
 * @param bias b (out), or empty when the module has none ({@code bias=False})
 * @param inWidth in, the width it reads
 * @param activation what follows the product
 */
public record DenseLayer(float[] weight, float[] bias, int inWidth, Activation activation)
    implements Serializable {

  public DenseLayer {
    if (inWidth < 1 || weight.length % inWidth != 0 || weight.length == 0
        || (bias.length > 0 && bias.length != weight.length / inWidth)) {
      throw new IllegalArgumentException("A dense layer's weight is (out, " + inWidth + ") and "
          + "its bias (out)");
    }
  }

  /** The activations sentence-transformers' Dense takes ({@code activation_function}). */
  public enum Activation {
    IDENTITY, TANH, RELU, GELU;

    double apply(double v) {
      return switch (this) {
        case IDENTITY -> v;
        case TANH -> Math.tanh(v);
        case RELU -> Math.max(0, v);
        case GELU -> io.corpus.encoder.kernel.Activation.GELU.exact(v);
      };
    }
  }

  /** out, the width of what it gives. */
  public int outWidth() {
    return weight.length / inWidth;
  }

  /** act(W·x + b) of one vector of width in. */
  public float[] apply(float[] x) {
    int in = inWidth;
    int out = outWidth();
    float[] y = new float[out];
    for (int o = 0; o < out; o++) {
      double sum = bias.length == 0 ? 0 : bias[o];
      for (int i = 0; i < in; i++) {
        sum += (double) weight[o * in + i] * x[i];
      }
      y[o] = (float) activation.apply(sum);
    }
    return y;
  }
}
