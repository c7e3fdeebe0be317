package io.corpus.encoder.model;

import io.corpus.encoder.kernel.RowMajorBlas;
import io.corpus.encoder.kernel.Vectors;
import java.util.List;

/**
 * ColBERT's vectors: chosen tokens' final states through one or more linear layers, each result
 * L2-normalized, as FlagEmbedding computes bge-m3's ({@code colbert_linear}, with its bias) and
 * PyLate a ColBERT folder's (its Dense modules, usually without bias); a zero vector stays zero.
 * The products run in float32, as both do.
 *
 * @param layers the projections, in order, the first reading E values
 */
public record MultiVectorHead(List<DenseLayer> layers) implements Head {

  public MultiVectorHead {
    if (layers.isEmpty()) {
      throw new IllegalArgumentException("a multi-vector head projects through one layer or more");
    }
    for (int i = 1; i < layers.size(); i++) {
      if (layers.get(i).inWidth() != layers.get(i - 1).outWidth()) {
        throw new IllegalArgumentException("projection " + i + " reads "
            + layers.get(i).inWidth() + " values, and the one before gives "
            + layers.get(i - 1).outWidth());
      }
    }
    layers = List.copyOf(layers);
  }

  /** D, the width of each vector. */
  public int width() {
    return layers.get(layers.size() - 1).outWidth();
  }

  /**
   * The normalized vectors of the token states at {@code rows} of {@code states} (rows of E
   * values), (rows.length, D) row-major.
   */
  public float[] vectors(float[] states, int[] rows) {
    int in = layers.get(0).inWidth();
    int count = rows.length;
    float[] x = new float[count * in];
    for (int i = 0; i < count; i++) {
      System.arraycopy(states, rows[i] * in, x, i * in, in);
    }
    for (DenseLayer layer : layers) {
      int out = layer.outWidth();
      float[] y = new float[count * out];
      if (count > 0) {
        boolean biased = layer.bias().length > 0;
        if (biased) {
          Vectors.fillRows(y, 0, count, layer.bias());
        }
        RowMajorBlas.gemm(false, true, count, out, in, 1f, x, 0, in, layer.weight(), 0, in,
            biased ? 1f : 0f, y, 0, out);
        if (layer.activation() != DenseLayer.Activation.IDENTITY) {
          for (int i = 0; i < y.length; i++) {
            y[i] = (float) layer.activation().apply(y[i]);
          }
        }
      }
      x = y;
      in = out;
    }
    for (int t = 0; t < count; t++) {
      Pooling.normalize(x, t * in, in);
    }
    return x;
  }
}
