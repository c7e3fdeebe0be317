package io.corpus.encoder.kernel;

import java.util.Locale;
import java.util.Random;

/**
 * Where float32 weight products run: on the BLAS ({@link Float32Matrix}), or on oneDNN's float32
 * matmul ({@link OneDnnFloat32Matrix}) where that is at least {@link #MARGIN} times as fast on
 * this processor, counting the copies to and from native memory. The BLAS is not always the
 * processor's best: an OpenBLAS held to older kernels ({@code OPENBLAS_CORETYPE=Haswell} on an
 * AVX-512 machine runs at about half its rate) or one that predates the processor, while oneDNN
 * picks its kernels from the instructions it finds. Decided once per JVM by measuring both on a
 * layer's product (512 rows by a 768 × 768 weight, the best of eight after one untimed, in
 * turn, timed by the thread's CPU time); system property {@value #PROPERTY} pins it: {@code
 * auto} (the default), {@code blas} or {@code onednn}. Attention's products stay on the BLAS,
 * which runs their narrow shapes faster than oneDNN.
 */
public enum Float32Products {
  BLAS("the BLAS"),
  ONEDNN("oneDNN");

  public static final String PROPERTY = "encoder.float32-products";
  /** How much faster oneDNN must be to be chosen: a margin over the measurement's noise. */
  static final double MARGIN = 1.1;
  private static final int ROWS = PrecisionCalibration.ROWS;
  private static final int WIDTH = PrecisionCalibration.WIDTH;
  private static final int RUNS = 8;

  private final String label;

  Float32Products(String label) {
    this.label = label;
  }

  /**
   * The library, the two rates it was chosen by (GFLOP/s on one thread; NaN where not
   * measured) and why, in a phrase.
   */
  record Choice(Float32Products library, double blasRate, double oneDnnRate, String why) {}

  /** Measured once per JVM, on first use. */
  private static final class Calibrated {
    static final Choice CHOICE = calibrate();
  }

  /** The library this JVM multiplies float32 weights on. */
  public static Float32Products chosen() {
    return choice().library();
  }

  /** The choice with its rates and reason, as {@link #PROPERTY} says. */
  static Choice choice() {
    String pinned = System.getProperty(PROPERTY, "auto").trim().toLowerCase(Locale.ROOT);
    return switch (pinned) {
      case "auto" -> Calibrated.CHOICE;
      case "blas" -> new Choice(BLAS, Double.NaN, Double.NaN, PROPERTY + " = blas");
      case "onednn" -> {
        if (!OneDnn.available()) {
          throw new IllegalStateException(PROPERTY + " = onednn, but oneDNN did not load: "
              + OneDnn.failure());
        }
        yield new Choice(ONEDNN, Double.NaN, Double.NaN, PROPERTY + " = onednn");
      }
      default -> throw new IllegalArgumentException(PROPERTY + " is '"
          + System.getProperty(PROPERTY) + "'; it takes auto, blas or onednn");
    };
  }

  /** {@code m} where this library multiplies it: itself on the BLAS, a native copy on oneDNN. */
  Matrix place(Float32Matrix m) {
    return this == ONEDNN ? OneDnnFloat32Matrix.of(m) : m;
  }

  /**
   * GFLOP/s of the chosen library's float32 products on one thread: the BLAS's calibration
   * sgemm, or oneDNN's measured rate scaled by the same ratio to the BLAS's.
   */
  static double rate() {
    Choice c = choice();
    double sgemm = RowMajorBlas.sgemmGflops();
    return c.library() == ONEDNN && c.blasRate() > 0 ? sgemm * c.oneDnnRate() / c.blasRate()
        : sgemm;
  }

  /**
   * For the job's first line and the run summary: {@code float32 products on oneDNN 3.8.1
   * (avx512_core): 161 GFLOP/s against the BLAS's 93}.
   */
  public static String describe() {
    Choice c = choice();
    String library = c.library() == ONEDNN ? OneDnn.describe() : c.library().label;
    if (Double.isNaN(c.blasRate())) {
      return "float32 products on " + library + " (" + c.why() + ")";
    }
    return String.format(Locale.ROOT, "float32 products on %s: %s", library, c.why());
  }

  /**
   * The choice from the two rates (GFLOP/s; oneDNN's NaN where it did not load or run, with
   * {@code failure} saying why): oneDNN where it is at least {@link #MARGIN} times the BLAS's.
   */
  static Choice decide(double blasRate, double oneDnnRate, String failure) {
    if (Double.isNaN(oneDnnRate)) {
      return new Choice(BLAS, blasRate, oneDnnRate, "oneDNN " + failure);
    }
    boolean faster = oneDnnRate >= MARGIN * blasRate;
    String why = String.format(Locale.ROOT, faster
        ? "%.0f GFLOP/s against the BLAS's %.0f"
        : "%.0f GFLOP/s; oneDNN's %.0f is not %.2f times that", faster ? oneDnnRate : blasRate,
        faster ? blasRate : oneDnnRate, MARGIN);
    return new Choice(faster ? ONEDNN : BLAS, blasRate, oneDnnRate, why);
  }

  private static Choice calibrate() {
    if (!OneDnn.available()) {
      return decide(RowMajorBlas.sgemmGflops(), Double.NaN, "did not load: " + OneDnn.failure());
    }
    Random random = new Random(1);
    float[] w = PrecisionCalibration.uniform(random, WIDTH * WIDTH);
    float[] x = PrecisionCalibration.uniform(random, ROWS * WIDTH);
    float[] y = new float[ROWS * WIDTH];
    Float32Matrix onBlas = new Float32Matrix(w, WIDTH, WIDTH);
    long blas = Long.MAX_VALUE;
    long oneDnn = Long.MAX_VALUE;
    try {
      Matrix onOneDnn = OneDnnFloat32Matrix.of(onBlas);
      for (int run = 0; run <= RUNS; run++) {   // in turn, so that both see the same load
        long start = PrecisionCalibration.threadCpuNanos();
        onBlas.multiply(ROWS, x, 0, y, 0, false);
        long middle = PrecisionCalibration.threadCpuNanos();
        onOneDnn.multiply(ROWS, x, 0, y, 0, false);
        long end = PrecisionCalibration.threadCpuNanos();
        if (run > 0) {
          blas = Math.min(blas, middle - start);
          oneDnn = Math.min(oneDnn, end - middle);
        }
      }
    } catch (RuntimeException | LinkageError e) {   // the BLAS, whatever oneDNN does
      return decide(RowMajorBlas.sgemmGflops(), Double.NaN, "its float32 product failed: "
          + e.getMessage());
    }
    double flops = 2.0 * ROWS * WIDTH * WIDTH;
    return decide(flops / Math.max(1, blas), flops / Math.max(1, oneDnn), "");
  }
}
