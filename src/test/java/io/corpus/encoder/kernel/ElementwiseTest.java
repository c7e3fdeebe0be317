package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.Slow;
import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import org.apache.commons.math3.special.Erf;
import org.junit.jupiter.api.Test;

class ElementwiseTest {
  @Test
  void erfIsAccurateToFloatPrecision() {
    for (double x = -6; x <= 6; x += 0.001) {
      assertEquals(Erf.erf(x), ScalarElementwise.erf(x), 2e-7, "erf(" + x + ")");
    }
  }

  @Test
  void vectorImplementationIsInUseAndMatchesTheScalarOne() {
    assertEquals("VectorElementwise", Elementwise.INSTANCE.getClass().getSimpleName(),
        "the test JVM runs with --add-modules jdk.incubator.vector");
    Elementwise scalar = new ScalarElementwise();
    java.util.Random random = new java.util.Random(5);
    for (int width : new int[] {1, 3, 15, 16, 17, 64, 129}) {
      int rows = 3;
      float[] x = new float[rows * width + 2];
      for (int i = 0; i < x.length; i++) {
        x[i] = (float) (random.nextGaussian() * 4);
      }
      x[1] = -20f;
      x[x.length - 2] = 9f;
      float[] bias = new float[width];
      float[] gamma = new float[width];
      for (int i = 0; i < width; i++) {
        bias[i] = (float) random.nextGaussian();
        gamma[i] = 1 + (float) random.nextGaussian() / 10;
      }
      int ops = Activation.values().length + 3;    // softmax, each activation, the two norms
      float[][] vector = new float[ops][];
      float[][] plain = new float[ops][];
      for (int op = 0; op < ops; op++) {
        float[] a = x.clone();
        float[] b = x.clone();
        if (op == 0) {     // a (rows, width) matrix: one entry masked, column 0 entirely
          for (int r = 0; r < rows; r++) {
            a[r * width] = Float.NEGATIVE_INFINITY;
            b[r * width] = Float.NEGATIVE_INFINITY;
          }
          a[width + width / 2] = Float.NEGATIVE_INFINITY;
          b[width + width / 2] = Float.NEGATIVE_INFINITY;
          float[] vectorSums = new float[width];
          float[] plainSums = new float[width];
          Elementwise.INSTANCE.expColumns(a, rows, width, new float[width], vectorSums);
          scalar.expColumns(b, rows, width, new float[width], plainSums);
          for (int c = 0; c < width; c++) {
            assertEquals(plainSums[c], vectorSums[c], 2e-6 * Math.max(1, plainSums[c]),
                "column sum " + c + " width " + width);
          }
          assertEquals(0f, vectorSums[0], "a fully masked column sums to 0");
        } else if (op < ops - 2) {
          Activation act = Activation.values()[op - 1];
          Elementwise.INSTANCE.biasActivation(act, a, rows, bias);
          scalar.biasActivation(act, b, rows, bias);
        } else if (op == ops - 2) {
          Elementwise.INSTANCE.layerNorm(x, 1, a, 1, rows, gamma, bias, 1e-5f);
          scalar.layerNorm(x, 1, b, 1, rows, gamma, bias, 1e-5f);
        } else {
          Elementwise.INSTANCE.rmsNorm(x, 1, a, 1, rows, width, gamma, 1e-6f);
          scalar.rmsNorm(x, 1, b, 1, rows, width, gamma, 1e-6f);
        }
        vector[op] = a;
        plain[op] = b;
      }
      for (int op = 0; op < ops; op++) {
        int from = op >= ops - 2 ? 1 : 0;
        int to = from + rows * width;
        assertEquals(x[x.length - 1], vector[op][x.length - 1], 0, "op " + op + " stays in range");
        for (int i = from; i < to; i++) {
          assertEquals(plain[op][i], vector[op][i], 2e-6 * Math.max(1, Math.abs(plain[op][i])),
              "op " + op + " width " + width + " at " + i);
        }
      }
    }
  }

  @Test
  void vectorExpIsWithinTwoUlpsSubnormalThenZeroBelowTheUnderflowBound() {
    for (double x = -87.33; x <= 0; x += 0.0037) {
      assertEquals(Math.exp((float) x), vectorExp((float) x),
          2 * Math.ulp((float) Math.exp((float) x)), "exp(" + (float) x + ")");
    }
    // between 2^−126 and the floor: subnormal, off by at most the smallest normal's ulp-scale
    for (double x = -87.68; x < -87.34; x += 0.001) {
      float e = vectorExp((float) x);
      assertTrue(e >= 0 && e < Float.MIN_NORMAL, "exp(" + (float) x + ") subnormal: " + e);
      assertEquals(Math.exp((float) x), e, Math.exp((float) x) * 1e-3 + 0x1p-148,
          "exp(" + (float) x + ")");
    }
    float[] zeros = {-87.7f, -88.03f, -88.1f, -100f, -1000f, -1e30f, -Float.MAX_VALUE,
        Float.NEGATIVE_INFINITY};
    for (float x : zeros) {
      assertEquals(0, Float.compare(0f, vectorExp(x)), "exp(" + x + ") is +0");
    }
    assertEquals(1f, vectorExp(0f));
    assertEquals(1f, vectorExp(-0f));
    assertEquals(1f, vectorExp(-1e-30f));
    assertEquals(Math.exp(-87), vectorExp(-87f), 2 * Math.ulp(vectorExp(-87f)));
    assertTrue(Float.isNaN(vectorExp(Float.NaN)), "NaN stays NaN");
  }

  /**
   * expShifted's entries are the vector exponential of x − shift, bit for bit, whether the shift
   * is the row's finite max (the clamp on the bits of −(shift − x)) or not finite (the row all
   * masked: −∞ − −∞ is NaN; a NaN or +∞ among the scores): masked keys give +0, NaN stays NaN.
   */
  @Test
  void expShiftedIsTheVectorExponentialOfEachEntryForEveryShift() {
    java.util.Random random = new java.util.Random(9);
    for (int length : new int[] {1, 15, 16, 40, 257}) {
      for (int kind = 0; kind < 4; kind++) {
        float[] x = new float[length + 2];
        for (int j = 0; j < x.length; j++) {
          int k = random.nextInt(6);
          x[j] = kind == 1 || k == 0 ? Float.NEGATIVE_INFINITY
              : k == 1 ? -200f * random.nextFloat() : (float) random.nextGaussian() * 5;
        }
        if (kind == 2) {
          x[1 + length / 2] = Float.NaN;
        } else if (kind == 3) {
          x[1 + length / 3] = Float.POSITIVE_INFINITY;
        }
        float shift = Elementwise.INSTANCE.max(x, 1, length);
        float[] got = x.clone();
        Elementwise.INSTANCE.expShifted(got, 1, length, shift);
        for (int j = 1; j <= length; j++) {
          assertEquals(Float.floatToIntBits(vectorExp(x[j] - shift)),
              Float.floatToIntBits(got[j]), "exp(" + x[j] + " - " + shift + "), length "
              + length + ", row kind " + kind);
        }
        assertEquals(x[0], got[0], "before the row");
        assertEquals(x[length + 1], got[length + 1], "after the row");
      }
    }
  }

  /** The largest value wherever it lies: in either running max, the odd vector or the tail. */
  @Test
  void maxFindsTheLargestAtEveryPlace() {
    java.util.Random random = new java.util.Random(9);
    for (Elementwise e : new Elementwise[] {Elementwise.INSTANCE, new ScalarElementwise()}) {
      for (int length = 1; length <= 75; length++) {
        for (int place = 0; place < length; place++) {
          float[] x = new float[length + 2];
          Arrays.fill(x, 1e9f);                            // outside the range read
          for (int j = 0; j < length; j++) {
            x[1 + j] = random.nextInt(5) == 0 ? Float.NEGATIVE_INFINITY
                : -1 - random.nextFloat() * 100;
          }
          x[1 + place] = -0.5f;
          assertEquals(-0.5f, e.max(x, 1, length),
              e.getClass().getSimpleName() + " length " + length + " largest at " + place);
        }
      }
      assertEquals(Float.NEGATIVE_INFINITY, e.max(new float[] {Float.NEGATIVE_INFINITY, 2f}, 0, 1));
    }
  }

  /** VectorElementwise's exponential of x, in every lane of a vector; lane 0 returned. */
  private static float vectorExp(float x) {
    float[] v = new float[FloatVector.SPECIES_PREFERRED.length()];
    Arrays.fill(v, x);
    VectorElementwise.expNonPositive(FloatVector.fromArray(FloatVector.SPECIES_PREFERRED, v, 0))
        .intoArray(v, 0);
    for (float lane : v) {
      assertEquals(0, Float.compare(v[0], lane), "every lane alike");
    }
    return v[0];
  }

  /**
   * The same bits interpreted and compiled: a JVM running with -Xint computes the fingerprint of
   * every vector pass, this one computes it after the JIT has compiled them.
   */
  @Slow
  @Test
  void vectorPassesGiveTheSameBitsInterpretedAndCompiled() throws Exception {
    for (int i = 0; i < 20_000; i++) {
      ElementwiseFingerprint.compute();
    }
    int compiled = ElementwiseFingerprint.compute();
    String java = ProcessHandle.current().info().command().orElse("java");
    // pinned on: an interpreting JVM would otherwise take the scalar passes (VectorApi)
    Process p = new ProcessBuilder(java, "-Xint", "--add-modules=jdk.incubator.vector",
        "-D" + VectorApi.PROPERTY + "=on", "-cp", System.getProperty("java.class.path"),
        ElementwiseFingerprint.class.getName())
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String out = new String(p.getInputStream().readAllBytes()).trim();
    assertEquals(0, p.waitFor());
    assertEquals(Elementwise.INSTANCE.describe() + ": " + compiled, out);
  }

  @Test
  void unknownActivationListsTheAllowedNames() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Activation.fromConfigName("swish"));
    assertEquals("Unknown activation 'swish', expected one of relu, gelu, gelu-tanh, silu",
        e.getMessage());
  }

  /**
   * The exponentials of expShiftedMoments are expShifted's, bit for bit, with their sum; its
   * terms are Σ e (shift − x) and Σ e |position − center| to float precision; a masked entry
   * (−∞) adds 0, not NaN. A row's first call drops what its place held (NaN here); a second
   * call adds its terms to the first's times the carry; the other rows' places are left alone.
   * Lengths around the vector width: its tail too.
   */
  @Test
  void expShiftedMomentsAreExpShiftedWithTheRowsTerms() {
    java.util.Random random = new java.util.Random(5);
    for (Elementwise e : new Elementwise[] {Elementwise.INSTANCE, new ScalarElementwise()}) {
      for (int length : new int[] {1, 7, 16, 19, 64, 257}) {
        float[] moments = new float[e.momentFloats(3)];
        Arrays.fill(moments, Float.NaN);
        float carry = 0f;
        double[] expected = new double[2];
        for (int call = 0; call < 2; call++) {
          float[] x = new float[length + 3];
          float[] positions = new float[length];
          for (int j = 0; j < length; j++) {
            x[3 + j] = j == 0 ? 1f : random.nextInt(6) == 0 ? Float.NEGATIVE_INFINITY
                : (float) random.nextGaussian() * 4;
            positions[j] = j * 2 + 1;
          }
          float shift = e.max(x, 3, length);
          float[] plain = x.clone();
          float plainSum = e.expShifted(plain, 3, length, shift);
          expected[0] *= carry;
          expected[1] *= carry;
          for (int j = 0; j < length; j++) {
            if (x[3 + j] != Float.NEGATIVE_INFINITY) {
              double w = Math.exp((double) x[3 + j] - shift);
              expected[0] += w * (shift - x[3 + j]);
              expected[1] += w * Math.abs(positions[j] - 11.5);
            }
          }
          float sum = e.expShiftedMoments(x, 3, length, shift, positions, 11.5f, moments, 1,
              carry);
          String what = e.getClass().getSimpleName() + " length " + length + " call " + call;
          assertEquals(plainSum, sum, what);
          assertArrayEquals(plain, x, what);
          double[] terms = new double[2];
          e.momentSums(moments, 1, terms);
          assertEquals(expected[0], terms[0], 1e-5 * Math.max(1, expected[0]), what);
          assertEquals(expected[1], terms[1], 1e-5 * Math.max(1, expected[1]), what);
          e.momentSums(moments, 0, terms);
          assertTrue(Double.isNaN(terms[0]) && Double.isNaN(terms[1]), what + ": row 0 left");
          carry = 0.25f;
        }
      }
    }
  }

  /**
   * expShiftedMoments' exponentials are expShifted's bits for every kind of shift, as the online
   * softmax passes them: the row's max with entries far below it (its terms capped at 10⁴), a
   * shift above every entry (a row whose max grew in an earlier tile), +∞ beside finite entries
   * (each 0, terms 0) or with a +∞ entry, and NaN; the row's terms NaN exactly where an
   * exponential is, else what the entries give.
   */
  @Test
  void expShiftedMomentsHaveExpShiftedsBitsForEveryShift() {
    java.util.Random random = new java.util.Random(13);
    Elementwise e = Elementwise.INSTANCE;
    for (int length : new int[] {1, 15, 16, 40, 257}) {
      for (int kind = 0; kind < 5; kind++) {
        float[] x = new float[length];
        float[] positions = new float[length];
        for (int j = 0; j < length; j++) {
          int k = random.nextInt(6);
          x[j] = k == 0 ? Float.NEGATIVE_INFINITY : k == 1 ? -2e4f * random.nextFloat()
              : (float) random.nextGaussian() * 5;
          positions[j] = j;
        }
        float shift = kind == 0 ? e.max(x, 0, length)
            : kind == 1 ? e.max(x, 0, length) + 3.5f
            : kind == 4 ? Float.NaN : Float.POSITIVE_INFINITY;
        if (kind == 3) {
          x[length / 2] = Float.POSITIVE_INFINITY;
        }
        float[] plain = x.clone();
        float plainSum = e.expShifted(plain, 0, length, shift);
        float[] got = x.clone();
        float[] moments = new float[e.momentFloats(1)];
        float sum = e.expShiftedMoments(got, 0, length, shift, positions, 3f, moments, 0, 0f);
        String what = "length " + length + ", shift kind " + kind + " (" + shift + ")";
        for (int j = 0; j < length; j++) {
          assertEquals(Float.floatToIntBits(plain[j]), Float.floatToIntBits(got[j]),
              "exp(" + x[j] + " - " + shift + "), " + what);
        }
        assertEquals(plainSum, sum, what);
        double[] expected = new double[2];
        for (int j = 0; j < length; j++) {
          if (got[j] > 0) {
            expected[0] += got[j] * ((double) shift - x[j]);
            expected[1] += got[j] * Math.abs(positions[j] - 3.0);
          }
        }
        boolean nan = Float.isNaN(sum);
        double[] terms = new double[2];
        e.momentSums(moments, 0, terms);
        for (int t = 0; t < 2; t++) {
          if (nan) {
            assertTrue(Double.isNaN(terms[t]), what + ": term " + t + " NaN");
          } else {
            assertEquals(expected[t], terms[t], 1e-5 * Math.max(1, expected[t]),
                what + ": term " + t);
          }
        }
      }
    }
  }

  /** Softmax down columns, but for the division: (rows = keys, cols = queries). */
  @Test
  void expColumnsIsStableAndMasked() {
    float[] x = {
        1000f, Float.NEGATIVE_INFINITY,
        1001f, Float.NEGATIVE_INFINITY,
        Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY,
        999f, Float.NEGATIVE_INFINITY};
    for (Elementwise e : new Elementwise[] {Elementwise.INSTANCE, new ScalarElementwise()}) {
      float[] y = x.clone();
      float[] sums = new float[2];
      e.expColumns(y, 4, 2, new float[2], sums);
      String name = e.getClass().getSimpleName();
      assertEquals(Math.exp(-1), y[0], 1e-6, name);
      assertEquals(1f, y[2], name);
      assertEquals(0f, y[4], name);
      assertEquals(Math.exp(-2), y[6], 1e-6, name);
      assertEquals(Math.exp(-1) + 1 + Math.exp(-2), sums[0], 1e-6, name);
      for (int r = 0; r < 4; r++) {
        assertEquals(0f, y[2 * r + 1], name + ": a fully masked column is zeros, not NaN");
      }
      assertEquals(0f, sums[1], name);
    }
  }

  @Test
  void rotatedHalvesHaveTheScalarPassesBitsAndTurnEachPairByItsAngle() {
    java.util.Random random = new java.util.Random(8);
    for (int pairs : new int[] {1, 7, 16, 32, 64, 67}) {
      float[] x = new float[2 * pairs + 3];
      float[] cos = new float[pairs + 2];
      float[] sin = new float[pairs + 2];
      for (int i = 0; i < x.length; i++) {
        x[i] = (float) random.nextGaussian();
      }
      for (int i = 0; i < cos.length; i++) {
        double angle = random.nextDouble() * 7;
        cos[i] = (float) Math.cos(angle);
        sin[i] = (float) Math.sin(angle);
      }
      float[] vector = x.clone();
      float[] plain = x.clone();
      Elementwise.INSTANCE.rotateHalves(vector, 1, 1 + pairs, cos, sin, 2, pairs);
      new ScalarElementwise().rotateHalves(plain, 1, 1 + pairs, cos, sin, 2, pairs);
      assertArrayEquals(plain, vector, pairs + " pairs");
      assertEquals(x[0], vector[0], "before the head");
      assertEquals(x[2 * pairs + 1], vector[2 * pairs + 1], "after the head");
      int last = pairs - 1;
      assertEquals(x[1 + last] * cos[2 + last] - x[1 + pairs + last] * sin[2 + last],
          vector[1 + last], 0, "first member of the last pair");
      assertEquals(x[1 + pairs + last] * cos[2 + last] + x[1 + last] * sin[2 + last],
          vector[1 + pairs + last], 0, "second member of the last pair");
    }
  }

  @Test
  void rmsNormDividesByTheRootMeanSquareOfEachStridedRowAndLeavesTheGapsAlone() {
    float[] x = {1f, 2f, 3f, 4f, 99f, 2f, 2f, 2f, 2f, 99f};   // two rows of 4, stride 5
    float[] gamma = {1f, 2f, 1f, 0.5f};
    for (Elementwise e : new Elementwise[] {Elementwise.INSTANCE, new ScalarElementwise()}) {
      String name = e.getClass().getSimpleName();
      float[] y = x.clone();
      e.rmsNorm(y, 0, y, 0, 2, 5, gamma, 0.5f);
      double inv = 1 / Math.sqrt((1 + 4 + 9 + 16) / 4.0 + 0.5);
      assertEquals(1 * inv, y[0], 1e-6, name);
      assertEquals(2 * inv * 2, y[1], 1e-6, name);
      assertEquals(4 * inv * 0.5, y[3], 1e-6, name);
      assertEquals(99f, y[4], name);
      assertEquals(2 / Math.sqrt(4 + 0.5) * 2, y[6], 1e-6, name);
      assertEquals(99f, y[9], name);
    }
  }

  @Test
  void layerNormUsesBiasedVarianceAndEpsInsideTheRoot() {
    float[] x = {1f, 2f, 3f, 6f};
    float[] gamma = {1f, 2f, 1f, 1f};
    float[] beta = {0f, 0f, 1f, 0f};
    float[] y = new float[4];
    LayerNorm.apply(x, 0, y, 0, 1, gamma, beta, 0.5f);
    double mean = 3;
    double var = (4 + 1 + 0 + 9) / 4.0;
    double inv = 1 / Math.sqrt(var + 0.5);
    assertEquals((1 - mean) * inv, y[0], 1e-6);
    assertEquals((2 - mean) * inv * 2, y[1], 1e-6);
    assertEquals(1, y[2], 1e-6);
    assertEquals((6 - mean) * inv, y[3], 1e-6);
  }
}
