package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The row-major wrapper against a triple loop, with every transpose, offset and stride. */
class RowMajorBlasTest {
  private final Random random = new Random(1);

  @Test
  void gemmMatchesNaiveLoopsForEveryTransposeWithOffsetsAndStrides() {
    int m = 5;
    int n = 7;
    int k = 3;
    for (boolean transA : new boolean[] {false, true}) {
      for (boolean transB : new boolean[] {false, true}) {
        // A stored as (m, k) or (k, m) inside a wider buffer: row stride lda > stored columns.
        int aRows = transA ? k : m;
        int aCols = transA ? m : k;
        int lda = aCols + 2;
        int bRows = transB ? n : k;
        int bCols = transB ? k : n;
        int ldb = bCols + 3;
        int ldc = n + 1;
        float[] a = randomArray(4 + aRows * lda);
        float[] b = randomArray(2 + bRows * ldb);
        float[] c = randomArray(1 + m * ldc);
        float[] expected = c.clone();
        for (int i = 0; i < m; i++) {
          for (int j = 0; j < n; j++) {
            double acc = 0;
            for (int p = 0; p < k; p++) {
              float av = transA ? a[4 + p * lda + i] : a[4 + i * lda + p];
              float bv = transB ? b[2 + j * ldb + p] : b[2 + p * ldb + j];
              acc += av * bv;
            }
            expected[1 + i * ldc + j] = (float) (0.5 * acc + 2 * c[1 + i * ldc + j]);
          }
        }
        RowMajorBlas.gemm(transA, transB, m, n, k, 0.5f, a, 4, lda, b, 2, ldb, 2f, c, 1, ldc);
        for (int i = 0; i < c.length; i++) {
          assertEquals(expected[i], c[i], 1e-5, "transA=" + transA + " transB=" + transB
              + " element " + i);
        }
      }
    }
  }

  @Test
  void linearIsXTimesWTransposedPlusWhatWasThere() {
    int rows = 4;
    int in = 6;
    int out = 3;
    float[] x = randomArray(rows * in);
    float[] w = randomArray(out * in);
    float[] y = randomArray(rows * out);
    float[] expected = y.clone();
    for (int r = 0; r < rows; r++) {
      for (int o = 0; o < out; o++) {
        for (int i = 0; i < in; i++) {
          expected[r * out + o] += x[r * in + i] * w[o * in + i];
        }
      }
    }
    RowMajorBlas.linear(rows, in, out, x, 0, w, y, 0, true);
    for (int i = 0; i < y.length; i++) {
      assertEquals(expected[i], y[i], 1e-5);
    }
  }

  @Test
  void implementationIsNativeSystemBlasWhereInstalledElseTheBundledOne() {
    String blas = RowMajorBlas.implementation();
    assertTrue(blas.startsWith("dev.ludovic.netlib.blas.JNIBLAS over "), blas);
    String expected = BundledOpenBlas.systemBlasPresent() ? "system libblas.so.3"
        : "bundled OpenBLAS";
    assertTrue(blas.contains(expected), blas);
  }

  /** A JVM told to use the bundled OpenBLAS (as on a machine without one) computes on it. */
  @Test
  void bundledOpenBlasLoadsAndMultipliesCorrectly() throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    Process p = new ProcessBuilder(java, "-D" + BundledOpenBlas.CHOICE + "=bundled", "-cp",
        System.getProperty("java.class.path"), BlasProbe.class.getName())
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String out = new String(p.getInputStream().readAllBytes()).trim();
    assertEquals(0, p.waitFor(), out);
    String[] lines = out.split("\n");
    assertTrue(lines[0].startsWith("dev.ludovic.netlib.blas.JNIBLAS over bundled OpenBLAS "
        + BundledOpenBlas.VERSION), lines[0]);
    assertTrue(Double.parseDouble(lines[1]) < 1e-4, "largest error " + lines[1]);
  }

  private float[] randomArray(int size) {
    float[] a = new float[size];
    for (int i = 0; i < size; i++) {
      a[i] = (float) random.nextGaussian();
    }
    return a;
  }
}
