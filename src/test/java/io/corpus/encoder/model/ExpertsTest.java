package io.corpus.encoder.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.kernel.Matrix;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A layer of experts against its definition computed row by row in double: each row's top
 * experts by softmax(x · routerᵀ), weighted by their probabilities (as routed, or divided by
 * their p-norm), plus the bias; rows grouped by expert in a block give each row what it gets
 * alone, and the output may overwrite the input.
 */
class ExpertsTest {
  private static final int E = 8;
  private static final int F = 12;
  private static final int X = 5;
  private static final int K = 2;

  /** p: the norm the top weights are divided by; 0 for none (as routed). */
  @ParameterizedTest
  @ValueSource(doubles = {0, 1, 2})
  void aBlockGroupedByExpertEqualsEachRowAloneAndTheDefinition(double p) {
    Random random = new Random(3);
    float[] router = RandomModels.gaussian(random, X * E, 1);
    Matrix[] in = new Matrix[X];
    Matrix[] out = new Matrix[X];
    for (int e = 0; e < X; e++) {
      in[e] = Matrix.of(RandomModels.gaussian(random, F * E, 0.4f), F, E);
      out[e] = Matrix.of(RandomModels.gaussian(random, E * F, 0.3f), E, F);
    }
    float[] bias = RandomModels.gaussian(random, E, 0.1f);
    Experts experts = new Experts(router, in, out, bias, K,
        p == 0 ? ExpertWeights.ROUTED : new ExpertWeights.PNorm(p));
    int rows = 9;
    float[] x = RandomModels.gaussian(random, rows * E, 1);
    float[] residual = RandomModels.gaussian(random, rows * E, 1);
    float[] block = new float[rows * E];
    experts.apply(rows, x, 0, Activation.GELU, residual, 0, block, 0, new Experts.Scratch());
    Experts.Scratch alone = new Experts.Scratch();
    for (int r = 0; r < rows; r++) {
      float[] one = new float[E];
      experts.apply(1, x, r * E, Activation.GELU, residual, r * E, one, 0, alone);
      float[] want = definition(experts, x, r, residual, p);
      for (int c = 0; c < E; c++) {
        assertTrue(Math.abs(one[c] - want[c]) <= 1e-4 * (1 + Math.abs(want[c])),
            "row " + r + " alone, column " + c + ": " + one[c] + " against " + want[c]);
        assertTrue(Math.abs(block[r * E + c] - want[c]) <= 1e-4 * (1 + Math.abs(want[c])),
            "row " + r + " in the block, column " + c);
      }
    }
    float[] inPlace = x.clone();
    experts.apply(rows, inPlace, 0, Activation.GELU, residual, 0, inPlace, 0,
        new Experts.Scratch());
    assertArrayEquals(block, inPlace, "the output written over the input");
  }

  /**
   * residual + bias + Σ over the top K of w · gelu(x · inᵀ) · outᵀ, in double: w the expert's
   * probability, divided by the top K's {@code norm}-norm when it is not 0.
   */
  private static float[] definition(Experts experts, float[] x, int r, float[] residual,
      double norm) {
    double[] p = new double[X];
    double total = 0;
    for (int e = 0; e < X; e++) {
      for (int c = 0; c < E; c++) {
        p[e] += (double) x[r * E + c] * experts.router()[e * E + c];
      }
    }
    double max = java.util.Arrays.stream(p).max().orElseThrow();
    for (int e = 0; e < X; e++) {
      p[e] = Math.exp(p[e] - max);
      total += p[e];
    }
    int[] top = new int[K];
    boolean[] taken = new boolean[X];
    double sum = 0;
    for (int k = 0; k < K; k++) {
      int best = -1;
      for (int e = 0; e < X; e++) {
        if (!taken[e] && (best < 0 || p[e] > p[best])) {
          best = e;
        }
      }
      taken[best] = true;
      top[k] = best;
      sum += norm == 0 ? 0 : Math.pow(p[best] / total, norm);
    }
    double divisor = norm == 0 ? 1 : Math.pow(sum, 1 / norm);
    double[] y = new double[E];
    for (int best : top) {
      float[] w1 = experts.in()[best].floats();
      float[] w2 = experts.out()[best].floats();
      double[] hidden = new double[F];
      for (int j = 0; j < F; j++) {
        double s = 0;
        for (int c = 0; c < E; c++) {
          s += (double) x[r * E + c] * w1[j * E + c];
        }
        hidden[j] = 0.5 * s * (1 + erf(s / Math.sqrt(2)));
      }
      for (int c = 0; c < E; c++) {
        double s = 0;
        for (int j = 0; j < F; j++) {
          s += hidden[j] * w2[c * F + j];
        }
        y[c] += p[best] / total / divisor * s;
      }
    }
    float[] out = new float[E];
    for (int c = 0; c < E; c++) {
      out[c] = (float) (residual[r * E + c] + experts.bias()[c] + y[c]);
    }
    return out;
  }

  /** erf to 1e-7 (Abramowitz and Stegun 7.1.26 is too coarse; a series and a fraction). */
  private static double erf(double z) {
    double t = 1.0 / (1.0 + 0.5 * Math.abs(z));
    double tau = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196
        + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398
        + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
    return z >= 0 ? 1 - tau : tau - 1;
  }
}
