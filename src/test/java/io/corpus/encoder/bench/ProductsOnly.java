package io.corpus.encoder.bench;

import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.kernel.RowMajorBlas;
import io.corpus.encoder.model.Encoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The floor under a layer's time: its four matrix products alone, the same calls on the same
 * shapes as {@link Encoder#forward} makes for a batch of N tokens (QKV (N, E)·(E, 3E), output
 * (N, E)·(E, E), feed-forward (rows, E)·(E, F) and (rows, F)·(F, E) in blocks of
 * {@link Matrix#BLOCK_ROWS} rows), with nothing else: no attention, softmax, activation, norm or
 * copies. Run on every thread at once, one BLAS thread each, as Spark tasks run. A job whose
 * tokens must all pass these products cannot be faster than they are.
 */
final class ProductsOnly implements Runnable {
  private static final long WARM_UP_NANOS = 1_000_000_000L;
  /** Measured for a third of the bench's seconds, at least this long. */
  private static final double MIN_SECONDS = 2;

  private final int n;        // N: tokens per batch
  private final int width;    // E
  private final int ffn;      // F
  private final int block;    // rows of the feed-forward at a time
  private final float[] x;        // (N, E)
  private final float[] inProj;   // (3E, E)
  private final float[] qkv;      // (N, 3E)
  private final float[] outProj;  // (E, E)
  private final float[] out;      // (N, E)
  private final float[] ffnIn;    // (F, E)
  private final float[] hidden;   // (block, F)
  private final float[] ffnOut;   // (E, F)

  private ProductsOnly(Bench.Shape s) {
    this.n = s.batchTokens();
    this.width = s.width();
    this.ffn = s.ffn();
    this.block = Math.min(n, Matrix.BLOCK_ROWS);
    Random random = new Random(5);
    this.x = Bench.gaussian(random, n * width);
    this.inProj = Bench.gaussian(random, 3 * width * width);
    this.qkv = new float[n * 3 * width];
    this.outProj = Bench.gaussian(random, width * width);
    this.out = new float[n * width];
    this.ffnIn = Bench.gaussian(random, ffn * width);
    this.hidden = new float[block * ffn];
    this.ffnOut = Bench.gaussian(random, width * ffn);
  }

  /** One layer's products over the batch. */
  @Override
  public void run() {
    RowMajorBlas.linear(n, width, 3 * width, x, 0, inProj, qkv, 0, false);
    RowMajorBlas.linear(n, width, width, x, 0, outProj, out, 0, true);
    for (int first = 0; first < n; first += block) {
      int rows = Math.min(block, n - first);
      RowMajorBlas.linear(rows, width, ffn, x, first * width, ffnIn, hidden, 0, false);
      RowMajorBlas.linear(rows, ffn, width, hidden, 0, ffnOut, out, first * width, true);
    }
  }

  /**
   * Tokens per second through one layer's products, summed over the shape's threads running at
   * once (each after its own warm-up; only time when all are running counts).
   */
  static double tokensPerSecond(Bench.Shape s) throws Exception {
    int threads = s.threads();
    long measureNanos = (long) (Math.max(MIN_SECONDS, s.seconds() / 3) * 1e9);
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Double>> rates = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        rates.add(pool.submit(() -> {
          ProductsOnly products = new ProductsOnly(s);
          long warmEnd = System.nanoTime() + WARM_UP_NANOS;
          while (System.nanoTime() < warmEnd) {
            products.run();
          }
          start.await(1, TimeUnit.MINUTES);
          long t0 = System.nanoTime();
          long end = t0 + measureNanos;
          int runs = 0;
          long t1;
          do {
            products.run();
            runs++;
            t1 = System.nanoTime();
          } while (t1 < end);
          return (double) runs * products.n / ((t1 - t0) / 1e9);
        }));
      }
      double sum = 0;
      for (Future<Double> rate : rates) {
        sum += rate.get();
      }
      return sum;
    } finally {
      pool.shutdownNow();
    }
  }
}
