package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.ChildJvm;
import io.corpus.encoder.testing.Slow;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
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
  void implementationNamesTheOpenBlasItLoadedAndItsSpeed() {
    // jobs/test installs OpenBLAS; without it, the bundled one is loaded.
    String blas = RowMajorBlas.implementation();
    assertTrue(blas.startsWith("OpenBLAS 0."), blas);
    assertTrue(blas.matches(".*sgemm \\d+ GFLOP/s$"), blas);
  }

  /** A JVM told to use the bundled OpenBLAS (as on a machine without one) computes on it. */
  @Test
  void bundledOpenBlasLoadsAndMultipliesCorrectly() throws Exception {
    String[] lines = probe(Map.of(), "-D" + BundledOpenBlas.CHOICE + "=bundled");
    assertTrue(lines[0].startsWith("OpenBLAS " + BundledOpenBlas.VERSION + " ("), lines[0]);
    assertTrue(lines[0].contains("bundled OpenBLAS " + BundledOpenBlas.VERSION), lines[0]);
    assertTrue(Double.parseDouble(lines[1]) < 1e-4, "largest error " + lines[1]);
  }

  /**
   * A machine whose libblas.so.3 is the reference BLAS (here a stand-in file first on
   * LD_LIBRARY_PATH, which the dynamic linker would load): the job computes on OpenBLAS instead,
   * and says why.
   */
  @Slow
  @Test
  void referenceBlasAsLibblasIsPassedOverForOpenBlas(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("libblas.so.3"), "not OpenBLAS: sgemm_ xerbla_ libc.so.6");
    String[] lines = probe(Map.of("LD_LIBRARY_PATH", dir.toString()));
    assertTrue(lines[0].startsWith("OpenBLAS 0."), lines[0]);
    assertTrue(lines[0].contains("libblas.so.3 is reference BLAS or unknown ("
        + dir.toRealPath().resolve("libblas.so.3") + "), passed over"), lines[0]);
    assertTrue(Double.parseDouble(lines[1]) < 1e-4, "largest error " + lines[1]);
  }

  /** Runs {@link BlasProbe} in a JVM of its own; returns its lines. */
  static String[] probe(Map<String, String> env, String... jvmOptions) throws Exception {
    ChildJvm.Result result = ChildJvm.run(BlasProbe.class, env, List.of(jvmOptions));
    assertEquals(0, result.exitCode(), result.out() + result.err());
    return result.lines();
  }

  private float[] randomArray(int size) {
    float[] a = new float[size];
    for (int i = 0; i < size; i++) {
      a[i] = (float) random.nextGaussian();
    }
    return a;
  }
}
