package io.corpus.encoder.kernel;

import java.util.EnumMap;
import java.util.Map;
import java.util.Random;

/**
 * What {@code --check} says of {@code model.precision} on this processor: for each precision,
 * whether it runs and how fast its product goes there (a 512 × 768 by 768 × 768 weight product,
 * the best of three after one untimed; float32's whole, on the BLAS or on oneDNN with its
 * copies, as {@link Float32Products} chose; for int8 and bfloat16 oneDNN's matmul alone, without
 * the passes around it, which the JIT compiles only once a job has run them a while: a cold
 * bfloat16 product with its passes measured 10 GFLOP/s here and cut the real-text job into 44
 * pieces instead of 2), or why it is refused.
 */
public final class PrecisionCalibration {
  /** The calibration product's rows and weight width: a 512 × 768 by 768 × 768 product. */
  static final int ROWS = 512;
  static final int WIDTH = 768;
  private static final int RUNS = 3;
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
    for (int run = 0; run <= RUNS; run++) {
      long start = System.nanoTime();
      if (m instanceof OneDnnMatrix reduced && precision != Precision.FLOAT32) {
        ReducedProducts.forThisThread().productOnly(ROWS, reduced);
      } else {
        m.multiply(ROWS, x, 0, y, 0, false);
      }
      long took = System.nanoTime() - start;
      if (run > 0) {
        best = Math.min(best, took);
      }
    }
    return 2.0 * ROWS * WIDTH * WIDTH / Math.max(1, best);
  }
}
