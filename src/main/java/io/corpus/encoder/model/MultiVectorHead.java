package io.corpus.encoder.model;

import io.corpus.encoder.kernel.RowMajorBlas;
import io.corpus.encoder.kernel.Vectors;
import java.io.Serializable;

/**
 * ColBERT's vectors: every kept token's final state through one linear layer, each result
 * L2-normalized (bge-m3's {@code colbert_linear}, as FlagEmbedding's {@code _colbert_embedding}
 * and {@code F.normalize} compute them; a zero vector stays zero).
 *
 * @param weight (D, E), row-major
 * @param bias (D), or zeros
 */
public record MultiVectorHead(float[] weight, float[] bias) implements Serializable {

  public MultiVectorHead {
    if (bias.length == 0 || weight.length % bias.length != 0) {
      throw new IllegalArgumentException("a multi-vector projection of " + weight.length
          + " weights does not fit " + bias.length + " outputs");
    }
  }

  /** D, the width of each vector. */
  public int width() {
    return bias.length;
  }

  /**
   * The normalized vectors of {@code count} token states of width E from row {@code firstRow}
   * of {@code states}, (count, D) row-major.
   */
  public float[] vectors(float[] states, int firstRow, int count) {
    int out = bias.length;
    int in = weight.length / out;
    float[] vectors = new float[count * out];
    if (count == 0) {
      return vectors;
    }
    Vectors.fillRows(vectors, 0, count, bias);
    RowMajorBlas.gemm(false, true, count, out, in, 1f, states, firstRow * in, in, weight, 0, in,
        1f, vectors, 0, out);
    for (int t = 0; t < count; t++) {
      Pooling.normalize(vectors, t * out, out);
    }
    return vectors;
  }

  /** Number of float parameters. */
  public long parameterCount() {
    return weight.length + (long) bias.length;
  }
}
