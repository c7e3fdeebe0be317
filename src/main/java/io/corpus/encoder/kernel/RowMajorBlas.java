package io.corpus.encoder.kernel;

import dev.ludovic.netlib.blas.BLAS;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Row-major matrix products on top of netlib's column-major {@code sgemm}.
 *
 * <p>A row-major M×K matrix with leading dimension {@code lda} is, to a column-major BLAS, its own
 * transpose (K×M, same {@code lda}). So {@code C = op(A)·op(B)} in row-major is computed as the
 * column-major {@code Cᵀ = op(B)ᵀ·op(A)ᵀ}: swap the operands and the sizes M and N, keep the flags.
 * This class is the one place that identity lives.
 *
 * <p>The implementation (native JNI over the system's OpenBLAS, or over the bundled one, see
 * {@link BlasChoice}; else Vector API or pure Java) is chosen once, before netlib loads;
 * {@link #implementation()} names it, says why and how fast it runs, for logs and summaries.
 */
public final class RowMajorBlas {
  private static final Logger LOG = Logger.getLogger(RowMajorBlas.class.getName());
  // netlib warns about each fallback it tries and drops (VectorBLAS needs an incubator module);
  // the one choice that matters is reported below. Held in a field so the level sticks.
  private static final Logger NETLIB_LOG = quiet(Logger.getLogger("dev.ludovic.netlib"));
  // Before netlib looks for a native library: pass over a reference BLAS (BlasChoice).
  private static final BlasChoice CHOICE = BlasLibrary.configure();
  private static final BLAS BLAS_INSTANCE = BLAS.getInstance();
  /** Below this, on one thread, a BLAS is far slower than an optimized one is anywhere now. */
  static final double SLOW_GFLOPS = 20;

  static {
    CHOICE.warning().ifPresent(LOG::warning);
    String name = BLAS_INSTANCE.getClass().getName();
    if (!name.endsWith("JNIBLAS")) {
      LOG.warning("netlib chose " + name + ", not native BLAS (" + CHOICE.source() + " did not "
          + "load): matrix products run 10-25x slower. Install OpenBLAS (Debian: apt-get install "
          + "libopenblas0-pthread) or keep org.bytedeco:openblas on the classpath.");
    }
  }

  private RowMajorBlas() {}

  private static Logger quiet(Logger logger) {
    logger.setLevel(Level.SEVERE);
    return logger;
  }

  /** What {@link #implementation()} says, measured once per JVM. */
  private static final class Described {
    static final double GFLOPS = BlasCalibration.gflops();
    static final String TEXT = describe();

    private static String describe() {
      String name = BLAS_INSTANCE.getClass().getName();
      String library = name.endsWith("JNIBLAS")
          ? BlasLibrary.loaded().orElse(CHOICE.kind().label()) : name + " (Java, no native BLAS)";
      double gflops = GFLOPS;
      if (gflops < SLOW_GFLOPS) {
        LOG.warning(String.format("BLAS: a %d^3 sgemm ran at %.1f GFLOP/s on %s, far below the "
            + "50 to 100 an optimized BLAS reaches on one core of a current CPU: the job will be "
            + "slow (a reference BLAS, or an overloaded machine)", BlasCalibration.SIZE, gflops,
            library));
      }
      return String.format("%s, %s (%s); sgemm %.0f GFLOP/s", library, CHOICE.source(),
          CHOICE.reason(), gflops);
    }
  }

  /**
   * The BLAS in use, why, and how fast: for example {@code OpenBLAS 0.3.21 (Zen, pthread), system
   * libblas.so.3 (libblas.so.3 is OpenBLAS (...)); sgemm 95 GFLOP/s}. The first call measures a
   * short product ({@link BlasCalibration}).
   */
  public static String implementation() {
    return Described.TEXT;
  }

  /** The GFLOP/s of the product {@link #implementation()} measured, on one thread. */
  public static double sgemmGflops() {
    return Described.GFLOPS;
  }

  /**
   * {@code C = alpha · op(A) · op(B) + beta · C}, all row-major.
   *
   * @param m rows of op(A) and of C
   * @param n columns of op(B) and of C
   * @param k columns of op(A), rows of op(B)
   * @param lda row stride of A as stored (≥ its stored column count)
   */
  public static void gemm(boolean transA, boolean transB, int m, int n, int k,
      float alpha, float[] a, int aOffset, int lda, float[] b, int bOffset, int ldb,
      float beta, float[] c, int cOffset, int ldc) {
    if (m == 0 || n == 0) {
      return;
    }
    BLAS_INSTANCE.sgemm(transB ? "T" : "N", transA ? "T" : "N", n, m, k,
        alpha, b, bOffset, ldb, a, aOffset, lda, beta, c, cOffset, ldc);
  }

  /**
   * Linear layer {@code Y (+)= X·Wᵀ} with PyTorch's (out, in) weight layout.
   *
   * <p>X is rows×in at {@code x[xOffset]} with row stride {@code in}; W is out×in; Y is rows×out.
   * With {@code accumulate}, Y must already hold what is to be added (a bias, a residual).
   */
  public static void linear(int rows, int in, int out, float[] x, int xOffset, float[] w,
      float[] y, int yOffset, boolean accumulate) {
    gemm(false, true, rows, out, in, 1f, x, xOffset, in, w, 0, in,
        accumulate ? 1f : 0f, y, yOffset, out);
  }
}
