package io.corpus.encoder.testing;

/**
 * Statistics and rollout computed the plain way, in double, from full (T, T) maps such as
 * PyTorch's: what the encoder's own must equal. Real query rows only, as the job defines them.
 */
public final class MapAnalytics {
  private MapAnalytics() {}

  /** Sums over the real query rows of entropy, distance, first, self, previous, next, max. */
  public static double[] statSums(double[][] a, boolean[] real) {
    double[] sums = new double[7];
    int t = a.length;
    for (int i = 0; i < t; i++) {
      if (real != null && !real[i]) {
        continue;
      }
      double max = 0;
      for (int j = 0; j < t; j++) {
        double w = a[i][j];
        if (w > 0) {
          sums[0] -= w * Math.log(w);
        }
        sums[1] += w * Math.abs(i - j);
        max = Math.max(max, w);
      }
      sums[2] += a[i][0];
      sums[3] += a[i][i];
      sums[4] += i > 0 ? a[i][i - 1] : 0;
      sums[5] += i + 1 < t ? a[i][i + 1] : 0;
      sums[6] += max;
    }
    return sums;
  }

  public static int realCount(int t, boolean[] real) {
    if (real == null) {
      return t;
    }
    int n = 0;
    for (boolean r : real) {
      n += r ? 1 : 0;
    }
    return n;
  }

  /**
   * Rollout over the real tokens: per layer Â = ½ mean over heads + ½ I, rows renormalized,
   * R = Â_L ⋯ Â_1; returned at full size with zero rows and columns at padding.
   */
  public static double[][] rollout(double[][][][] maps, boolean[] real) {
    int layers = maps.length;
    int heads = maps[0].length;
    int t = maps[0][0].length;
    int[] idx = realIndices(t, real);
    int n = idx.length;
    double[][] r = null;
    for (int l = 0; l < layers; l++) {
      double[][] a = new double[n][n];
      for (int i = 0; i < n; i++) {
        double sum = 0;
        for (int j = 0; j < n; j++) {
          double mean = 0;
          for (int h = 0; h < heads; h++) {
            mean += maps[l][h][idx[i]][idx[j]];
          }
          a[i][j] = 0.5 * mean / heads + (i == j ? 0.5 : 0);
          sum += a[i][j];
        }
        for (int j = 0; j < n; j++) {
          a[i][j] /= sum;
        }
      }
      r = r == null ? a : multiply(a, r);
    }
    double[][] full = new double[t][t];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        full[idx[i]][idx[j]] = r[i][j];
      }
    }
    return full;
  }

  private static int[] realIndices(int t, boolean[] real) {
    return java.util.stream.IntStream.range(0, t).filter(i -> real == null || real[i]).toArray();
  }

  private static double[][] multiply(double[][] a, double[][] b) {
    int n = a.length;
    double[][] c = new double[n][n];
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < n; k++) {
        for (int j = 0; j < n; j++) {
          c[i][j] += a[i][k] * b[k][j];
        }
      }
    }
    return c;
  }
}
