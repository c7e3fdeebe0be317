package io.corpus.encoder.kernel;

import java.util.Random;

/**
 * A short {@code sgemm} at start-up, to see the BLAS's real speed on this machine: a 512³
 * product is 0.27 GFLOP, a few milliseconds on OpenBLAS and about 50 on the reference BLAS.
 */
final class BlasCalibration {
  static final int SIZE = 512;
  private static final int RUNS = 3;

  private BlasCalibration() {}

  /** GFLOP/s of the best of three products, after one untimed one. */
  static double gflops() {
    int n = SIZE;
    Random random = new Random(1);
    float[] a = new float[n * n];
    float[] b = new float[n * n];
    float[] c = new float[n * n];
    for (int i = 0; i < a.length; i++) {
      a[i] = random.nextFloat() - 0.5f;
      b[i] = random.nextFloat() - 0.5f;
    }
    long best = Long.MAX_VALUE;
    for (int run = 0; run <= RUNS; run++) {
      long start = System.nanoTime();
      RowMajorBlas.gemm(false, false, n, n, n, 1f, a, 0, n, b, 0, n, 0f, c, 0, n);
      long took = System.nanoTime() - start;
      if (run > 0) {
        best = Math.min(best, took);
      }
    }
    return 2.0 * n * n * n / Math.max(1, best);
  }
}
