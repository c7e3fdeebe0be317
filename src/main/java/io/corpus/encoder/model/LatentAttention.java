package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.kernel.LayerNorm;
import io.corpus.encoder.kernel.Matrix;
import java.io.Serializable;
import java.util.Arrays;

/**
 * NV-Embed's latent-attention block, applied to each token's final state before the mean: the
 * token attends, through {@code H} cross-attention heads of {@code D} values, to a learned array
 * of latents, then goes through a GEGLU feed-forward, each with a pre-norm and a residual, as
 * {@code LatentAttentionModel} computes it:
 * <pre>
 *   h = h + W_out · attend(W_q · LN₁(h), K, V)        K, V = split(W_kv · LN_c(latents))
 *   h = h + W₂ · (a ⊙ gelu(g)) + b₂                    (a, g) = split(W₁ · LN₂(h) + b₁)
 * </pre>
 * The keys and values depend on the latents alone, so they are computed once, at load; a token's
 * result depends on its own state only.
 *
 * @param width E, the token states' and the latents' width
 * @param heads H
 * @param headWidth D
 * @param queryNorm LN₁'s scale and shift, (2, E)
 * @param toQuery W_q (H·D, E)
 * @param keys per head, K_h (latents, D)
 * @param valuesTransposed per head, V_hᵀ (D, latents)
 * @param toOut W_out (E, H·D)
 * @param feedForwardNorm LN₂'s scale and shift, (2, E)
 * @param feedForwardIn W₁ (2·F, E): the first F outputs are a, the last F the gate g
 * @param feedForwardInBias b₁ (2·F)
 * @param feedForwardOut W₂ (E, F)
 * @param feedForwardOutBias b₂ (E)
 * @param eps the norms' epsilon
 */
public record LatentAttention(int width, int heads, int headWidth, float[][] queryNorm,
    Matrix toQuery, Matrix[] keys, Matrix[] valuesTransposed, Matrix toOut,
    float[][] feedForwardNorm, Matrix feedForwardIn, float[] feedForwardInBias,
    Matrix feedForwardOut, float[] feedForwardOutBias, float eps) implements BeforePooling {

  /**
   * The block's keys and values from the latents (latents, E) through LN_c and W_kv (2·H·D, E):
   * the first H·D outputs are the keys, the rest the values, computed in double.
   */
  public static Matrix[][] keysAndValues(float[] latents, int count, float[][] contextNorm,
      float[] toKeysAndValues, int heads, int headWidth, float eps) {
    int e = contextNorm[0].length;
    int inner = heads * headWidth;
    float[] normed = new float[latents.length];
    LayerNorm.apply(latents, 0, normed, 0, count, contextNorm[0], contextNorm[1], eps);
    Matrix[] keys = new Matrix[heads];
    Matrix[] values = new Matrix[heads];
    for (int h = 0; h < heads; h++) {
      float[] k = new float[count * headWidth];
      float[] vt = new float[headWidth * count];
      for (int n = 0; n < count; n++) {
        for (int d = 0; d < headWidth; d++) {
          k[n * headWidth + d] = (float) dot(normed, n * e, toKeysAndValues,
              (h * headWidth + d) * e, e);
          vt[d * count + n] = (float) dot(normed, n * e, toKeysAndValues,
              (inner + h * headWidth + d) * e, e);
        }
      }
      keys[h] = Matrix.of(k, count, headWidth);
      values[h] = Matrix.of(vt, headWidth, count);
    }
    return new Matrix[][] {keys, values};
  }

  private static double dot(float[] a, int ai, float[] b, int bi, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
      s += (double) a[ai + i] * b[bi + i];
    }
    return s;
  }

  /** The block applied to {@code rows} token states of x from row {@code first}: a new array. */
  public float[] apply(float[] x, int first, int rows) {
    int e = width;
    int inner = heads * headWidth;
    int latents = keys[0].rows();
    float[] h = Arrays.copyOfRange(x, first * e, (first + rows) * e);
    float[] normed = new float[rows * e];
    LayerNorm.apply(h, 0, normed, 0, rows, queryNorm[0], queryNorm[1], eps);
    float[] q = new float[rows * inner];
    toQuery.multiply(rows, normed, 0, q, 0, false);
    float[] context = new float[rows * inner];
    float[] head = new float[rows * headWidth];
    float[] scores = new float[rows * latents];
    float[] out = new float[rows * headWidth];
    double scale = 1 / Math.sqrt(headWidth);
    for (int hd = 0; hd < heads; hd++) {
      for (int r = 0; r < rows; r++) {
        System.arraycopy(q, r * inner + hd * headWidth, head, r * headWidth, headWidth);
      }
      keys[hd].multiply(rows, head, 0, scores, 0, false);
      for (int r = 0; r < rows; r++) {
        softmax(scores, r * latents, latents, scale);
      }
      valuesTransposed[hd].multiply(rows, scores, 0, out, 0, false);
      for (int r = 0; r < rows; r++) {
        System.arraycopy(out, r * headWidth, context, r * inner + hd * headWidth, headWidth);
      }
    }
    toOut.multiply(rows, context, 0, h, 0, true);
    LayerNorm.apply(h, 0, normed, 0, rows, feedForwardNorm[0], feedForwardNorm[1], eps);
    int f = feedForwardOut.cols();
    float[] in = new float[rows * 2 * f];
    feedForwardIn.multiply(rows, normed, 0, in, 0, false);
    float[] gated = new float[rows * f];
    for (int r = 0; r < rows; r++) {
      for (int i = 0; i < f; i++) {
        double a = in[r * 2 * f + i] + feedForwardInBias[i];
        double g = in[r * 2 * f + f + i] + feedForwardInBias[f + i];
        gated[r * f + i] = (float) (a * Activation.GELU.exact(g));
      }
    }
    feedForwardOut.multiply(rows, gated, 0, h, 0, true);
    for (int r = 0; r < rows; r++) {
      for (int i = 0; i < e; i++) {
        h[r * e + i] += feedForwardOutBias[i];
      }
    }
    return h;
  }

  /** x[from..from+n) := softmax(scale · x), in double. */
  private static void softmax(float[] x, int from, int n, double scale) {
    double max = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < n; i++) {
      max = Math.max(max, scale * x[from + i]);
    }
    double sum = 0;
    double[] p = new double[n];
    for (int i = 0; i < n; i++) {
      p[i] = Math.exp(scale * x[from + i] - max);
      sum += p[i];
    }
    for (int i = 0; i < n; i++) {
      x[from + i] = (float) (p[i] / sum);
    }
  }
}
