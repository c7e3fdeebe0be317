package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.Bfloat16Kernels;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The int8 and bfloat16 products on oneDNN against the same arithmetic done here in double: the
 * int8 product must equal Σ (scale_t·(q_t − zero_t))·(scale_o·q_o) over the quantized values, up
 * to float32 rounding of the result, for any batch size the primitives are reused with; the
 * bfloat16 product Σ bf16(x)·bf16(w) summed in float32. Runs on whatever processor this is
 * (oneDNN picks the kernels; {@link OneDnn#isa} is printed).
 */
class ReducedProductsTest {
  private static float[] random(Random rnd, int n, double scale) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) (rnd.nextGaussian() * scale);
    }
    return a;
  }

  @Test
  void int8ProductEqualsTheQuantizedArithmetic() {
    System.out.println("oneDNN: " + OneDnn.describe());
    Random rnd = new Random(3);
    int k = 96;
    int outs = 40;
    float[] w = random(rnd, outs * k, 0.2);
    Int8Matrix m = Int8Matrix.quantize(w, outs, k);
    int qmax = ReducedProducts.activationMax();
    for (int n : new int[] {1, 7, 130, 7}) {       // the same primitive, other row counts
      float[] x = random(rnd, 3 + n * k, 1.5);     // read from an offset of 3
      x[3] = 30f;                                  // an outlier: a coarse scale for token 0
      float[] bias = random(rnd, n * outs + 5, 1);
      float[] y = bias.clone();
      m.multiply(n, x, 3, y, 5, true);
      byte[] q = new byte[n * k];
      float[] scales = new float[n];
      int[] zeros = new int[n];
      ReducedProducts.quantizeRows(n, k, x, 3, qmax, q, scales, zeros);
      for (int i = 0; i < 5; i++) {
        assertEquals(bias[i], y[i], "values before the offset are left alone");
      }
      byte[] values = m.values();       // a copy of the native weights: taken once
      float[] weightScales = m.scales();
      for (int t = 0; t < n; t++) {
        for (int o = 0; o < outs; o++) {
          double sum = 0;
          for (int i = 0; i < k; i++) {
            sum += (double) scales[t] * ((q[t * k + i] & 0xFF) - zeros[t])
                * weightScales[o] * values[o * k + i];
          }
          double expected = bias[5 + t * outs + o] + sum;
          assertEquals(expected, y[5 + t * outs + o], 1e-5 * (1 + Math.abs(expected)),
              "n " + n + ", token " + t + ", output " + o);
        }
      }
    }
  }

  /**
   * A linear layer's bias and residual: written into y before the product in float32, added in
   * the int8 product's rescaling pass; either way y is the product plus both, each optional,
   * the residual another array or y itself.
   */
  @Test
  void linearAddsItsBiasAndResidualToTheProduct() {
    Random rnd = new Random(11);
    int k = 48;
    int outs = 24;   // one whole vector of 16 lanes and a tail of 8
    int n = 9;
    float[] w = random(rnd, outs * k, 0.2);
    float[] x = random(rnd, 3 + n * k, 1);
    float[] bias = random(rnd, outs, 1);
    float[] residual = random(rnd, 2 + n * outs, 1);
    for (Precision p : new Precision[] {Precision.FLOAT32, Precision.INT8}) {
      Matrix m = Matrix.of(w, outs, k).in(p);
      float[] product = new float[n * outs];
      m.multiply(n, x, 3, product, 0, false);
      for (int form = 0; form < 5; form++) {
        boolean biased = form % 2 == 0;
        boolean inPlace = form >= 3;
        boolean added = form < 2 || inPlace;
        float[] y = new float[5 + n * outs];
        if (inPlace) {
          System.arraycopy(residual, 2, y, 5, n * outs);
        }
        m.linear(n, x, 3, biased ? bias : null, added ? (inPlace ? y : residual) : null,
            inPlace ? 5 : 2, y, 5);
        for (int t = 0; t < n; t++) {
          for (int o = 0; o < outs; o++) {
            double expected = product[t * outs + o] + (biased ? bias[o] : 0)
                + (added ? residual[2 + t * outs + o] : 0);
            assertEquals(expected, y[5 + t * outs + o], 1e-5 * (1 + Math.abs(expected)),
                p + " form " + form + ", token " + t + ", output " + o);
          }
        }
        for (int i = 0; i < 5; i++) {
          assertEquals(0f, y[i], "values before the offset are left alone");
        }
      }
    }
  }

  @Test
  void int8ProductIsCloseToFloat32() {
    Random rnd = new Random(5);
    int n = 64;
    int k = 384;
    int outs = 128;
    float[] w = random(rnd, outs * k, 0.05);
    float[] x = random(rnd, n * k, 1);
    float[] exact = new float[n * outs];
    Matrix.of(w, outs, k).multiply(n, x, 0, exact, 0, false);
    float[] int8 = new float[n * outs];
    Matrix.of(w, outs, k).in(Precision.INT8).multiply(n, x, 0, int8, 0, false);
    double diff = 0;
    double norm = 0;
    for (int i = 0; i < exact.length; i++) {
      diff += (exact[i] - int8[i]) * (exact[i] - int8[i]);
      norm += exact[i] * exact[i];
    }
    double relative = Math.sqrt(diff / norm);
    System.out.printf("int8 against float32: relative error %.2e%n", relative);
    assertTrue(relative < 0.02, "int8 product's relative error " + relative);
  }

  @Test
  void bfloat16ProductSumsRoundedInputsInFloat32() {
    Random rnd = new Random(9);
    int n = 33;
    int k = 64;
    int outs = 24;
    float[] w = random(rnd, outs * k, 0.3);
    float[] x = random(rnd, n * k, 1);
    Bfloat16Matrix m = Bfloat16Matrix.round(w, outs, k);
    float[] y = new float[n * outs];
    if (!OneDnn.isa().bfloat16Kernels()) {
      // no bfloat16 kernels below AVX-512, not even emulated: the job refuses it up front
      IllegalStateException none = assertThrows(IllegalStateException.class,
          () -> m.multiply(n, x, 0, y, 0, false));
      assertTrue(none.getMessage().contains("oneDNN status 3"), none.getMessage());
      return;
    }
    m.multiply(n, x, 0, y, 0, false);
    float[] wr = m.floats();
    for (int t = 0; t < n; t++) {
      for (int o = 0; o < outs; o++) {
        double sum = 0;
        for (int i = 0; i < k; i++) {
          sum += (double) Bfloat16Matrix.toFloat(Bfloat16Matrix.toBfloat16(x[t * k + i]))
              * wr[o * k + i];
        }
        assertEquals(sum, y[t * outs + o], 1e-5 * (1 + Math.abs(sum)),
            "token " + t + ", output " + o);
      }
    }
  }

  /**
   * A bfloat16 feed-forward hands the activation from one product to the next inside oneDNN:
   * with V the identity, y = bf16(act(bf16(x) · Wᵀ + b)) + b2 + residual shows each hidden value
   * as oneDNN stored it, which must be the activation of the float32 product rounded to
   * bfloat16 (one bfloat16 step apart at most, where oneDNN's float32 activation and this double
   * one round to neighbours), for each activation (a wrong oneDNN algorithm fails here; GELU and
   * its tanh form differ by less than a bfloat16 step and cannot be told apart).
   */
  @Test
  void bfloat16FeedForwardAppliesEachActivationBetweenItsProducts() {
    Bfloat16Kernels.assumeAvailable();   // below AVX-512 the product's failure is tested above
    Random rnd = new Random(21);
    int n = 300;       // two blocks
    int k = 40;
    int width = 48;    // F: the hidden width, and N with V the identity
    float[] w = random(rnd, width * k, 0.3);
    float[] x = random(rnd, 2 + n * k, 1);
    float[] bias = random(rnd, width, 0.5);
    float[] outBias = random(rnd, width, 1);
    float[] residual = random(rnd, n * width, 1);
    float[] identity = new float[width * width];
    for (int i = 0; i < width; i++) {
      identity[i * width + i] = 1;
    }
    Bfloat16Matrix first = Bfloat16Matrix.round(w, width, k);
    Bfloat16Matrix second = Bfloat16Matrix.round(identity, width, width);
    float[] wr = first.floats();
    for (Activation activation : Activation.values()) {
      float[] y = new float[3 + n * width];
      first.feedForward(n, x, 2, bias, activation, second, outBias, residual, 0, y, 3, null);
      for (int t = 0; t < n; t++) {
        for (int o = 0; o < width; o++) {
          double sum = bias[o];
          for (int i = 0; i < k; i++) {
            sum += (double) Bfloat16Matrix.toFloat(Bfloat16Matrix.toBfloat16(x[2 + t * k + i]))
                * wr[o * k + i];
          }
          float expected = Bfloat16Matrix.toFloat(
              Bfloat16Matrix.toBfloat16((float) activation.exact(sum)));
          float hiddenSeen = y[3 + t * width + o] - outBias[o] - residual[t * width + o];
          double step = Math.ulp(expected) * 65536;     // a bfloat16 step at this magnitude
          double off = Math.abs(hiddenSeen - expected);
          assertTrue(off <= step + 1e-5 * (1 + Math.abs(expected)), activation + " token " + t
              + ", output " + o + ": " + hiddenSeen + " against " + expected);
        }
      }
      System.out.println(activation + ": every hidden value within one bfloat16 step");
    }
  }

  /**
   * The int8 feed-forward, whose first product's rescaling also finds each hidden row's range
   * for the second one's quantizing, gives the same bits as its two products run one after the
   * other (each quantizing looking for its own range): over two blocks, a hidden width whose last
   * values no whole vector covers, with and without a residual.
   */
  @Test
  void int8FeedForwardEqualsItsTwoProducts() {
    Random rnd = new Random(22);
    int n = 300;
    int k = 40;
    int width = 72;    // F: 64 in whole vectors of 16 or 8 lanes, 8 in the tail
    int outs = 24;
    Int8Matrix first = Int8Matrix.quantize(random(rnd, width * k, 0.3), width, k);
    Int8Matrix second = Int8Matrix.quantize(random(rnd, outs * width, 0.2), outs, width);
    float[] x = random(rnd, 2 + n * k, 1);
    for (int t = 0; t < n; t += 7) {
      x[2 + t * k + k - 1] = 12f;     // a large input at the end of some rows
    }
    float[] bias = random(rnd, width, 0.5);
    float[] outBias = random(rnd, outs, 1);
    for (float[] residual : new float[][] {null, random(rnd, n * outs, 1)}) {
      float[] hidden = new float[n * width];
      float[] expected = new float[3 + n * outs];
      first.activatedLinear(n, x, 2, bias, Activation.GELU, hidden);
      second.linear(n, hidden, 0, outBias, residual, 0, expected, 3);
      float[] fused = new float[3 + n * outs];
      first.feedForward(n, x, 2, bias, Activation.GELU, second, outBias, residual, 0, fused, 3,
          new float[ReducedProducts.INT8_BLOCK * width]);
      assertArrayEquals(expected, fused, "residual " + (residual != null));
    }
  }

  /**
   * The zero-point columns: each row's add up to minus the sum of its values, within int8, as
   * few as that takes; the values themselves are unchanged, and products through them (oneDNN's
   * GELU product where this processor has VNNI or AMX, the Java passes taking off nothing
   * elsewhere) equal those through the same weights held without them, up to float32 rounding.
   */
  @Test
  void zeroPointColumnsTakeOffEachTokensZeroPoint() {
    Random rnd = new Random(31);
    int k = 70;
    int outs = 40;
    float[] w = random(rnd, outs * k, 0.2);
    for (int c = 0; c < k; c++) {
      w[c] = 0.3f;                 // row 0: all positive, its sum 127·70, the largest there is
    }
    Int8Matrix with = Int8Matrix.quantize(w, outs, k, true);
    Int8Matrix without = Int8Matrix.quantize(w, outs, k, false);
    assertArrayEquals(without.values(), with.values());
    assertEquals(70, with.zeroColumns(), "⌈127·70 / 127⌉ columns for row 0");
    assertEquals(0, without.zeroColumns());
    byte[] values = with.values();
    for (int r = 0; r < outs; r++) {
      int sum = 0;
      for (int c = 0; c < k; c++) {
        sum += values[r * k + c];
      }
      for (byte b : with.zeroColumnsOf(r)) {
        assertTrue(b >= -127, "row " + r + ": " + b);
        sum += b;
      }
      assertEquals(0, sum, "row " + r + "'s values and zero-point columns");
    }
    int n = 45;
    float[] x = random(rnd, n * k, 1.5);
    float[] bias = random(rnd, outs, 1);
    for (boolean gelu : new boolean[] {false, true}) {
      float[] expected = new float[n * outs];
      float[] y = new float[n * outs];
      if (gelu) {
        without.activatedLinear(n, x, 0, bias, Activation.GELU, expected);
        with.activatedLinear(n, x, 0, bias, Activation.GELU, y);
      } else {
        without.linear(n, x, 0, bias, null, 0, expected, 0);
        with.linear(n, x, 0, bias, null, 0, y, 0);
      }
      for (int i = 0; i < y.length; i++) {
        assertEquals(expected[i], y[i], 2e-6 * (1 + Math.abs(expected[i])),
            "gelu " + gelu + ", value " + i);
      }
    }
    Matmuls.Int8Gelu kind = new Matmuls.Int8Gelu(with.stride(), outs, 64, true);
    assertEquals(OneDnn.isa().exactInt8(), new Matmuls().runsInt8Gelu(kind),
        "oneDNN applies the GELU as it stores the product on " + OneDnn.isa().label());
  }

  @Test
  void float32MatrixIsTheBlasProduct() {
    Random rnd = new Random(11);
    float[] w = random(rnd, 24 * 16, 1);
    float[] x = random(rnd, 5 * 16, 1);
    float[] viaMatrix = new float[5 * 24];
    float[] viaBlas = new float[5 * 24];
    Matrix.of(w, 24, 16).multiply(5, x, 0, viaMatrix, 0, false);
    RowMajorBlas.linear(5, 16, 24, x, 0, w, viaBlas, 0, false);
    assertArrayEquals(viaBlas, viaMatrix);
    assertEquals(Precision.FLOAT32, Matrix.of(w, 24, 16).in(Precision.FLOAT32).precision());
  }
}
