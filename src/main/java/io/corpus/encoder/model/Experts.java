package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.kernel.Precision;
import java.io.Serializable;
import java.util.Arrays;

/**
 * A mixture-of-experts feed-forward, as nomic-embed-text-v2-moe's layers compute it
 * (MegaBlocks' layout, read by nomic's {@code NomicMoELayer}, vLLM's and TEI's ports): each token
 * is routed by p = softmax(x · routerᵀ) to its {@code topK} most probable experts, which it
 * weights by their p as they are, or divided by their p-norm where
 * {@code moe_normalize_expert_weights} gives a p ({@link ExpertWeights}); expert e computes
 * act(x · inₑᵀ) · outₑᵀ (no bias of its own), and one bias is added to the weighted sum.
 *
 * <p>Routing is the token's alone: its scores are summed in double, in one order, from its own
 * row, so a token goes to the same experts whatever rows share its batch. A block of rows is
 * then grouped by expert: each expert's rows are gathered into one product pair, and its
 * outputs, weighted, are added back to their rows in expert order.
 *
 * @param router (X, E) float32, the router's logits layer, never reduced in precision
 * @param in X matrices (F, E): expert e's first layer
 * @param out X matrices (E, F): expert e's second layer, transposed from the (F, E) block the
 *     checkpoint stores
 * @param bias (E), added once to the experts' weighted sum
 * @param topK the experts each token takes
 * @param weighting how a token's top weights are taken: as routed, or divided by their p-norm
 */
public record Experts(float[] router, Matrix[] in, Matrix[] out, float[] bias, int topK,
    ExpertWeights weighting) implements FeedForward {

  public Experts {
    int experts = in.length;
    int width = bias.length;
    if (experts < 1 || out.length != experts || router.length != experts * width
        || topK < 1 || topK > experts) {
      throw new IllegalArgumentException("experts need X >= 1 in and out matrices, a router of "
          + "(X, E), and 1 <= top k <= X; got " + experts + " and " + out.length + " matrices, "
          + "a router of " + router.length + " values for E = " + width + ", top " + topK);
    }
    for (int e = 0; e < experts; e++) {
      if (in[e].cols() != width || out[e].rows() != width || out[e].cols() != in[e].rows()
          || in[e].rows() != in[0].rows()) {
        throw new IllegalArgumentException("expert " + e + " is (" + in[e].rows() + ", "
            + in[e].cols() + ") then (" + out[e].rows() + ", " + out[e].cols() + "), expected (F, "
            + width + ") then (" + width + ", F)");
      }
    }
  }

  /** X, the experts. */
  public int count() {
    return in.length;
  }

  /** F, each expert's hidden width. */
  @Override
  public int ffnWidth() {
    return in[0].rows();
  }

  @Override
  public int blockRows() {
    return in[0].blockRows();
  }

  /** These experts with their matrices in {@code precision} (the router stays float32). */
  @Override
  public Experts in(Precision precision) {
    return new Experts(router, Arrays.stream(in).map(m -> m.in(precision)).toArray(Matrix[]::new),
        Arrays.stream(out).map(m -> m.in(precision)).toArray(Matrix[]::new), bias, topK,
        weighting);
  }

  /**
   * y (rows, E) = addend + bias + Σ over each row's top experts of weight · expert(x); y may be
   * the addend or x (every row of x is read before y is written); addend null: none.
   */
  public void apply(int rows, float[] x, int xOffset, Activation activation, float[] addend,
      int addendOffset, float[] y, int yOffset, Scratch s) {
    int width = bias.length;
    int f = ffnWidth();
    s.ensure(rows, width, f, topK, count());
    for (int r = 0; r < rows; r++) {
      route(x, xOffset + r * width, s.logits, s.chosen, s.weights, r * topK);
    }
    Arrays.fill(s.sum, 0, rows * width, 0f);
    for (int e = 0; e < count(); e++) {
      int count = 0;
      for (int r = 0; r < rows; r++) {
        for (int k = 0; k < topK; k++) {
          if (s.chosen[r * topK + k] == e) {
            System.arraycopy(x, xOffset + r * width, s.gathered, count * width, width);
            s.rowOf[count] = r;
            s.weightOf[count] = s.weights[r * topK + k];
            count++;
          }
        }
      }
      if (count == 0) {
        continue;
      }
      in[e].activatedLinear(count, s.gathered, 0, s.zeros, activation, s.hidden);
      out[e].linear(count, s.hidden, 0, null, null, 0, s.output, 0);
      for (int i = 0; i < count; i++) {
        float w = s.weightOf[i];
        int at = s.rowOf[i] * width;
        for (int c = 0; c < width; c++) {
          s.sum[at + c] += w * s.output[i * width + c];
        }
      }
    }
    for (int r = 0; r < rows; r++) {
      for (int c = 0; c < width; c++) {
        float a = addend == null ? 0f : addend[addendOffset + r * width + c];
        y[yOffset + r * width + c] = a + s.sum[r * width + c] + bias[c];
      }
    }
  }

  /**
   * One token's top experts and their weights: the router's logits in double, summed in column
   * order, their softmax, the {@code topK} largest (the lower index first on a tie), divided by
   * their p-norm where asked.
   */
  private void route(float[] x, int offset, double[] logits, int[] chosen, float[] weights,
      int at) {
    int width = bias.length;
    double max = Double.NEGATIVE_INFINITY;
    for (int e = 0; e < count(); e++) {
      double sum = 0;
      for (int c = 0; c < width; c++) {
        sum += (double) x[offset + c] * router[e * width + c];
      }
      logits[e] = sum;
      max = Math.max(max, sum);
    }
    double total = 0;
    for (int e = 0; e < count(); e++) {
      logits[e] = Math.exp(logits[e] - max);
      total += logits[e];
    }
    double norm = 0;
    for (int k = 0; k < topK; k++) {
      int best = -1;
      for (int e = 0; e < count(); e++) {
        if (logits[e] >= 0 && (best < 0 || logits[e] > logits[best])) {
          best = e;
        }
      }
      chosen[at + k] = best;
      double p = logits[best] / total;
      weights[at + k] = (float) p;
      norm += weighting.term(p);
      logits[best] = -1;                       // taken
    }
    if (weighting instanceof ExpertWeights.PNorm pNorm) {
      double divisor = Math.pow(norm, 1 / pNorm.p());
      for (int k = 0; k < topK; k++) {
        weights[at + k] = (float) (weights[at + k] / divisor);
      }
    }
  }

  /** One lane's buffers for {@link #apply}, grown as blocks need. */
  public static final class Scratch {
    private double[] logits = new double[0];
    private int[] chosen = new int[0];
    private float[] weights = new float[0];
    private float[] gathered = new float[0];
    private int[] rowOf = new int[0];
    private float[] weightOf = new float[0];
    private float[] hidden = new float[0];
    private float[] output = new float[0];
    private float[] sum = new float[0];
    private float[] zeros = new float[0];

    void ensure(int rows, int width, int f, int topK, int experts) {
      if (logits.length < experts) {
        logits = new double[experts];
      }
      if (chosen.length < rows * topK) {
        chosen = new int[rows * topK];
        weights = new float[rows * topK];
      }
      if (rowOf.length < rows) {
        rowOf = new int[rows];
        weightOf = new float[rows];
        gathered = new float[rows * width];
        output = new float[rows * width];
        sum = new float[rows * width];
        hidden = new float[rows * f];
      }
      if (hidden.length < rows * f) {
        hidden = new float[rows * f];
      }
      if (zeros.length < f) {
        zeros = new float[f];
      }
    }
  }
}
