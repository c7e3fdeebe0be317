package io.corpus.encoder.kernel;

import io.corpus.encoder.testing.ProbeMaps;
import java.util.Random;

/**
 * Prints the BLAS in use, the largest error of a 64 x 48 x 32 product against plain loops, and
 * the files of this process's memory map whose names say openblas (separated by spaces).
 */
public final class BlasProbe {
  private BlasProbe() {}

  public static void main(String[] args) {
    int m = 64;
    int n = 48;
    int k = 32;
    Random random = new Random(3);
    float[] a = new float[m * k];
    float[] b = new float[k * n];
    for (int i = 0; i < a.length; i++) {
      a[i] = (float) random.nextGaussian();
    }
    for (int i = 0; i < b.length; i++) {
      b[i] = (float) random.nextGaussian();
    }
    float[] c = new float[m * n];
    RowMajorBlas.gemm(false, false, m, n, k, 1f, a, 0, k, b, 0, n, 0f, c, 0, n);
    double worst = 0;
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        double sum = 0;
        for (int p = 0; p < k; p++) {
          sum += (double) a[i * k + p] * b[p * n + j];
        }
        worst = Math.max(worst, Math.abs(sum - c[i * n + j]));
      }
    }
    System.out.println(RowMajorBlas.implementation());
    System.out.println(worst);
    System.out.println(String.join(" ", ProbeMaps.mapped("openblas")));
  }
}
