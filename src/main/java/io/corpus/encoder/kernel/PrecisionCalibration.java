package io.corpus.encoder.kernel;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;

/**
 * What {@code --check} says of {@code model.precision} on this processor: for each precision,
 * whether it runs and how fast its product goes there (a 512 × 768 by 768 × 768 weight product;
 * float32's whole, on the BLAS or on oneDNN with its copies, as {@link Float32Products} chose;
 * for int8 and bfloat16 oneDNN's matmul alone, without the passes around it, which the JIT
 * compiles only once a job has run them a while: a cold bfloat16 product with its passes
 * measured 10 GFLOP/s here and cut the real-text job into 44 pieces instead of 2), or why it is
 * refused. A reduced product is timed by the thread's CPU time, as many runs as {@link
 * #LEAST_RUNS} and {@link #LEAST_NANOS} ask, and the best kept: in a fresh JVM on a Zen 5 the
 * same bfloat16 product ran at 105 GFLOP/s for its first eight or so runs, now and then 300,
 * and at 320 to 345 after; the best of three after one untimed read 62 to 159 in jobs, which
 * cut a decoder job into up to 48 pieces where 12 did.
 */
public final class PrecisionCalibration {
  /** The calibration product's rows and weight width: a 512 × 768 by 768 × 768 product. */
  static final int ROWS = 512;
  static final int WIDTH = 768;
  /** A reduced product's calibration times at least this many runs, the first untimed... */
  static final int LEAST_RUNS = 16;
  /** ...and runs for at least this long (a 512 × 768 × 768 bfloat16 product: 2 to 6 ms)... */
  static final long LEAST_NANOS = 60_000_000L;
  /** ...but no more runs than this (a slow product: the reference kernels, an emulator). */
  static final int MOST_RUNS = 64;
  private static final Map<Precision, Double> MEASURED = new EnumMap<>(Precision.class);

  private PrecisionCalibration() {}

  /**
   * How fast this precision's weight products run on one thread, in billions of operations
   * (multiply-adds × 2) a second: float32's on its library ({@link Float32Products#rate()}),
   * the others measured here once per JVM (about 0.15 s in a cold one; {@link
   * Precision#loadInBackground()} measures it as soon as oneDNN is loaded). A precision this
   * processor refuses is given float32's rate.
   */
  public static double productRate(Precision precision) {
    if (precision == Precision.FLOAT32 || precision.refusal().isPresent()) {
      return Float32Products.rate();
    }
    synchronized (MEASURED) {
      return MEASURED.computeIfAbsent(precision, PrecisionCalibration::rate);
    }
  }

  /**
   * One line: {@code precisions: float32 95 GFLOP/s (on the BLAS: ...); int8 210 GOP/s (oneDNN
   * 3.8.1, avx512_core_vnni, 8-bit activations); bfloat16 refused: ...}.
   */
  public static String describe() {
    StringBuilder s = new StringBuilder("precisions:");
    for (Precision p : Precision.values()) {
      s.append(p == Precision.FLOAT32 ? " " : "; ").append(p.configName());
      if (p.refusal().isPresent()) {
        s.append(" refused (").append(p.refusal().get()).append(')');
        continue;
      }
      s.append(String.format(" %.0f G%s/s", rate(p), p == Precision.INT8 ? "OP" : "FLOP"));
      if (p == Precision.FLOAT32) {
        s.append(" (").append(Float32Products.describe().replace("float32 products ", ""))
            .append(')');
      } else {
        s.append(" (").append(OneDnn.describe()).append(p == Precision.INT8
            ? (OneDnn.isa().exactInt8() ? ", 8-bit activations" : ", 7-bit activations: no VNNI")
            : "").append(')');
      }
    }
    return s.toString();
  }

  /** n values drawn uniformly from [−0.5, 0.5): a calibration product's weights or inputs. */
  static float[] uniform(Random random, int n) {
    float[] values = new float[n];
    for (int i = 0; i < n; i++) {
      values[i] = random.nextFloat() - 0.5f;
    }
    return values;
  }

  /** Multiply-adds × 2 per second of the best run, in billions. */
  static double rate(Precision precision) {
    Random random = new Random(1);
    float[] w = uniform(random, WIDTH * WIDTH);
    float[] x = uniform(random, ROWS * WIDTH);
    Matrix m = Matrix.of(w, WIDTH, WIDTH).in(precision);
    float[] y = new float[ROWS * WIDTH];
    long best = Long.MAX_VALUE;
    long began = System.nanoTime();
    for (int run = 0; run < MOST_RUNS
        && (run < LEAST_RUNS || System.nanoTime() - began < LEAST_NANOS); run++) {
      long start = threadCpuNanos();
      if (m instanceof OneDnnMatrix reduced && precision != Precision.FLOAT32) {
        ReducedProducts.forThisThread().productOnly(ROWS, reduced);
      } else {
        m.multiply(ROWS, x, 0, y, 0, false);
      }
      long took = threadCpuNanos() - start;
      if (run > 0) {
        best = Math.min(best, took);
      }
    }
    return 2.0 * ROWS * WIDTH * WIDTH / Math.max(1, best);
  }

  /**
   * This thread's CPU time, where the JVM measures it, else the wall clock: the calibrations run
   * beside Spark's start and the model's loading, and on two cores a product timed by the wall
   * clock was often cut by the other threads (oneDNN's float32 measured 86 to 147 GFLOP/s across
   * runs of the same job, and lost to the BLAS one time in three where it is 1.3 times as fast).
   * Only for products that run on the calling thread alone (oneDNN's are made single-threaded).
   */
  static long threadCpuNanos() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime()
        : System.nanoTime();
  }
}
