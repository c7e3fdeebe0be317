package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.kernel.LayerNorm;
import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.kernel.Precision;
import java.util.Arrays;

/**
 * SPLADE: a masked-language-model head on every token's final state, then sentence-transformers'
 * {@code SpladePooling}, as {@code BertForMaskedLM}'s {@code cls.predictions} (and
 * {@code RobertaForMaskedLM}'s {@code lm_head}, {@code DistilBertForMaskedLM}'s
 * {@code vocab_*}) compute it:
 *
 * <pre>
 *   x_t = LayerNorm(act(W_t · h_t + b_t))      W_t (E, E): the head's transform
 *   z_t = W_d · x_t + b_d                      W_d (V, E): the decoder, tied to the word
 *                                              embeddings; b_d (V)
 *   s   = max_t log(1 + relu(z_t))             over the sequence's real tokens (or sum_t)
 * </pre>
 *
 * The decoder is an (N, E) × (E, V) product per batch: V·E multiply-adds per token (30,522 ×
 * 768 = 23.4 M for BERT-base, a quarter more than its 12 layers' 85 M), run by BLAS in blocks of
 * up to 256 tokens across the batch's sequences, so its scratch is at most 32 MB whatever the
 * batch. With max pooling the bias, relu and log, which keep the order, are applied once per
 * vocabulary entry after the max, not once per token.
 *
 * @param transformWeight W_t, (E, E)
 * @param transformBias b_t, (E)
 * @param activation what follows W_t (the model's hidden_act)
 * @param normGamma the transform's LayerNorm scale (E)
 * @param normBeta its shift (E)
 * @param normEps its eps
 * @param decoderWeight W_d, (V, E): the word embedding table when tied (float32: a copy in
 *     another precision when the model's products are); not counted among the model's
 *     parameters ({@link Parameters.Tied}), its bytes are where it is a copy
 * @param decoderBias b_d, (V)
 * @param sum sum-pool over tokens instead of max-pool (the first SPLADE's)
 * @param twiceLog log(1 + log(1 + relu(z))), SpladePooling's {@code log1p_relu}
 */
public record SpladeHead(Matrix transformWeight, float[] transformBias, Activation activation,
    float[] normGamma, float[] normBeta, double normEps, @Parameters.Tied Matrix decoderWeight,
    float[] decoderBias, boolean sum, boolean twiceLog) implements Head {

  /** The most logits one product holds (32 MB): its rows are this over V, 16 to 256. */
  static final int BLOCK_FLOATS = 8 << 20;

  private static final ThreadLocal<float[][]> SCRATCH = new ThreadLocal<>();

  public SpladeHead {
    int e = transformBias.length;
    if (transformWeight.rows() != e || transformWeight.cols() != e || normGamma.length != e
        || normBeta.length != e || decoderWeight.rows() != decoderBias.length
        || decoderWeight.cols() != e) {
      throw new IllegalArgumentException("SPLADE head shapes disagree: transform ("
          + transformWeight.rows() + ", " + transformWeight.cols() + ") for E = " + e
          + ", decoder (" + decoderWeight.rows() + ", " + decoderWeight.cols() + ") for V = "
          + decoderBias.length);
    }
  }

  /** This head with its two products in {@code precision}. */
  @Override
  public SpladeHead in(Precision precision) {
    return new SpladeHead(transformWeight.in(precision), transformBias, activation, normGamma,
        normBeta, normEps, decoderWeight.in(precision), decoderBias, sum, twiceLog);
  }

  /** V, the sparse vector's length. */
  public int vocabularySize() {
    return decoderBias.length;
  }

  /** Rows of one decoder product: as many as {@link #BLOCK_FLOATS} logits hold, 16 to 256. */
  static int blockRows(int v) {
    return Math.max(16, Math.min(256, BLOCK_FLOATS / v));
  }

  /**
   * The pooled vectors (V each, mostly zeros) of every sequence of the batch, from its final
   * states. The decoder runs over the batch's rows in blocks that cross sequences, so that each
   * pass over W_d (V × E floats, 47 MB for BERT-base) serves up to 256 tokens, not one short
   * text's.
   */
  public float[][] pool(TokenBatch batch) {
    int e = transformBias.length;
    int v = decoderBias.length;
    int rows = blockRows(v);
    float[][] scratch = scratch(rows * e, rows * v);
    float[] x = scratch[0];        // (rows, E)
    float[] logits = scratch[1];   // (rows, V)
    float[] states = batch.tokens();
    float[][] out = new float[batch.sequenceCount()][];
    for (int b = 0; b < out.length; b++) {
      out[b] = new float[v];
      if (!sum) {
        Arrays.fill(out[b], Float.NEGATIVE_INFINITY);   // max of W_d · x_t, the bias after
      }
    }
    int b = 0;
    for (int r0 = 0; r0 < batch.tokenCount(); r0 += rows) {
      int n = Math.min(rows, batch.tokenCount() - r0);
      transformWeight.multiply(n, states, r0 * e, x, 0, false);
      activation.applyWithBias(x, n, transformBias);
      LayerNorm.apply(x, 0, x, 0, n, normGamma, normBeta, (float) normEps);
      decoderWeight.multiply(n, x, 0, logits, 0, false);
      for (int t = 0; t < n; t++) {
        while (r0 + t >= batch.firstRow(b) + batch.length(b)) {
          b++;
        }
        float[] pooled = out[b];
        int row = t * v;
        if (sum) {
          for (int i = 0; i < v; i++) {
            float z = logits[row + i] + decoderBias[i];
            pooled[i] += z > 0 ? activate(z) : 0;
          }
        } else {
          for (int i = 0; i < v; i++) {
            pooled[i] = Math.max(pooled[i], logits[row + i]);
          }
        }
      }
    }
    if (!sum) {
      for (float[] pooled : out) {
        for (int i = 0; i < v; i++) {
          float z = pooled[i] + decoderBias[i];
          pooled[i] = z > 0 ? activate(z) : 0;   // log1p and relu are monotone: after the max
        }
      }
    }
    return out;
  }

  private float activate(float z) {
    double s = Math.log1p(z);
    return (float) (twiceLog ? Math.log1p(s) : s);
  }

  private static float[][] scratch(int xFloats, int logitFloats) {
    float[][] s = SCRATCH.get();
    if (s == null || s[0].length < xFloats || s[1].length < logitFloats) {
      s = new float[][] {new float[xFloats], new float[logitFloats]};
      SCRATCH.set(s);
    }
    return s;
  }

  /**
   * The indices (ascending) and values of the non-zero entries of {@code pooled}; with
   * {@code topK} > 0, only the k largest (of equal ones, the lower index).
   */
  public static Sparse sparse(float[] pooled, int topK) {
    int count = 0;
    for (float value : pooled) {
      count += value != 0 ? 1 : 0;
    }
    int[] indices = new int[count];
    float[] values = new float[count];
    int c = 0;
    for (int i = 0; i < pooled.length; i++) {
      if (pooled[i] != 0) {
        indices[c] = i;
        values[c++] = pooled[i];
      }
    }
    return new Sparse(indices, values).largest(topK);
  }

  /** A sparse vector: vocabulary ids, ascending, and their values. */
  public record Sparse(int[] indices, float[] values) {
    /** The k largest entries (of equal ones, the lower index), ascending by id; all when k ≤ 0. */
    public Sparse largest(int k) {
      if (k <= 0 || indices.length <= k) {
        return this;
      }
      Integer[] order = new Integer[indices.length];
      for (int i = 0; i < order.length; i++) {
        order[i] = i;
      }
      Arrays.sort(order, (a, b) -> values[a] != values[b] ? Float.compare(values[b], values[a])
          : Integer.compare(indices[a], indices[b]));
      int[] kept = Arrays.stream(order, 0, k).mapToInt(Integer::intValue).sorted().toArray();
      int[] keptIndices = new int[k];
      float[] keptValues = new float[k];
      for (int i = 0; i < k; i++) {
        keptIndices[i] = indices[kept[i]];
        keptValues[i] = values[kept[i]];
      }
      return new Sparse(keptIndices, keptValues);
    }
  }
}
