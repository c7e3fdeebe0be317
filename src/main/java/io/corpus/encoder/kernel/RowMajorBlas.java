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
 * {@link BundledOpenBlas}; else Vector API or pure Java) is chosen once by netlib;
 * {@link #implementation()} names it for logs and run summaries.
 */
public final class RowMajorBlas {
  private static final Logger LOG = Logger.getLogger(RowMajorBlas.class.getName());
  // netlib warns about each fallback it tries and drops (VectorBLAS needs an incubator module);
  // the one choice that matters is reported below. Held in a field so the level sticks.
  private static final Logger NETLIB_LOG = quiet(Logger.getLogger("dev.ludovic.netlib"));
  // Before netlib looks for a native library: the bundled OpenBLAS where the system has none.
  private static final String LIBRARY = BundledOpenBlas.configure();
  private static final BLAS BLAS_INSTANCE = BLAS.getInstance();

  static {
    String name = BLAS_INSTANCE.getClass().getName();
    if (!name.endsWith("JNIBLAS")) {
      LOG.warning("netlib chose " + name + ", not native BLAS (" + LIBRARY + " did not load): "
          + "matrix products run 10-25x slower. Install OpenBLAS (Debian: apt-get install "
          + "libopenblas0-pthread) or keep org.bytedeco:openblas on the classpath.");
    }
  }

  private RowMajorBlas() {}

  private static Logger quiet(Logger logger) {
    logger.setLevel(Level.SEVERE);
    return logger;
  }

  /**
   * Class name of the BLAS netlib chose and, when native, the library under it: for example
   * {@code dev.ludovic.netlib.blas.JNIBLAS over system libblas.so.3}.
   */
  public static String implementation() {
    String name = BLAS_INSTANCE.getClass().getName();
    return name.endsWith("JNIBLAS") ? name + " over " + LIBRARY : name;
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
