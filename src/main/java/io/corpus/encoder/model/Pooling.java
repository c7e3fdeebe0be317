package io.corpus.encoder.model;

import io.corpus.encoder.common.ConfigName;
import java.util.Arrays;

/** How a sequence's output tokens become one sentence vector ({@code output.pooling}). */
public enum Pooling implements ConfigName {
  /** Mean over real tokens; the zero vector when there is none (an empty bag's mean). */
  MEAN("mean"),
  /** The first real token (the [CLS] position in BERT-style inputs). */
  FIRST("first"),
  /** Feature-wise maximum over real tokens. */
  MAX("max"),
  /**
   * The last real token, sentence-transformers' {@code pooling_mode_lasttoken}: a decoder's
   * (causal) last state is the one that has read the whole text.
   */
  LAST("last"),
  /** No pooled vector is written. */
  NONE("none"),
  /**
   * SPLADE's sparse vector over the vocabulary (sentence-transformers' {@code SpladePooling}):
   * the masked-LM head's logits of every real token, log(1 + relu(·)), max-pooled
   * ({@link SpladeHead}); written as indices and values instead of a pooled vector.
   */
  SPLADE("splade");

  private final String configName;

  Pooling(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }

  public static Pooling fromConfigName(String name) {
    return ConfigName.parse(values(), name, "pooling");
  }

  /**
   * Pools rows {@code [firstRow, firstRow + rows)} of x (width E) into a new E vector, or returns
   * null for {@link #NONE}. Mean accumulates in double.
   */
  public float[] pool(float[] x, int firstRow, int rows, int width) {
    if (!dense()) {
      return null;
    }
    float[] out = new float[width];
    int base = firstRow * width;
    switch (this) {
      case FIRST -> System.arraycopy(x, base, out, 0, width);
      case LAST -> System.arraycopy(x, base + (rows - 1) * width, out, 0, width);
      case MAX -> {
        Arrays.fill(out, Float.NEGATIVE_INFINITY);
        for (int r = 0; r < rows; r++) {
          for (int i = 0; i < width; i++) {
            out[i] = Math.max(out[i], x[base + r * width + i]);
          }
        }
      }
      case MEAN -> {
        double[] sum = new double[width];
        for (int r = 0; r < rows; r++) {
          for (int i = 0; i < width; i++) {
            sum[i] += x[base + r * width + i];
          }
        }
        for (int i = 0; i < width && rows > 0; i++) {   // no token: the zero vector
          out[i] = (float) (sum[i] / rows);
        }
      }
      default -> throw new AssertionError(this);
    }
    return out;
  }

  /** Whether it gives a dense vector of width E (not none, not SPLADE's sparse one). */
  public boolean dense() {
    return this != NONE && this != SPLADE;
  }

  /**
   * Scales {@code v} to unit L2 norm in place, as sentence-transformers' Normalize module does
   * (a zero vector stays zero). The norm accumulates in double.
   */
  public static void normalize(float[] v) {
    normalize(v, 0, v.length);
  }

  /** As {@link #normalize(float[])}, the {@code length} values from {@code offset}. */
  public static void normalize(float[] v, int offset, int length) {
    double sum = 0;
    for (int i = offset; i < offset + length; i++) {
      sum += (double) v[i] * v[i];
    }
    double norm = Math.sqrt(sum);
    if (norm > 0) {
      for (int i = offset; i < offset + length; i++) {
        v[i] = (float) (v[i] / norm);
      }
    }
  }
}
