package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The passes around an int8 product: the Vector API's and the scalar ones give the same bits,
 * and the GELU applied as an int8 feed-forward's sums are rescaled stays within its stated
 * distance of the exact GELU.
 */
class Int8PassesTest {
  @Test
  void rationalGeluIsWithinItsBoundOfTheExactOne() {
    double worst = VectorKernelsProbe.rationalGeluWorstError();
    System.out.printf("rational GELU: worst error %.2e (relative above |x| = 1)%n", worst);
    assertTrue(worst < 4e-7, "worst error " + worst);
  }

  @Test
  void vectorAndScalarPassesGiveTheSameBits() {
    sameBits(37);     // 512 bits: a pair of vectors of 16 and a tail; 256: two pairs of 8, a tail
    sameBits(53);     // 512 bits: a pair, a vector and a tail; 256: three pairs, a tail
  }

  /** The passes on rows of k values. */
  private static void sameBits(int k) {
    Int8Passes vector = Int8Passes.create();
    Int8Passes scalar = new ScalarInt8Passes();
    Random rnd = new Random(4);
    int n = 5;
    int outs = 45;
    float[] x = new float[n * k];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) (rnd.nextGaussian() * 3);
    }
    int stride = k + 3;   // three zero-point columns after each row
    byte[][] q = new byte[3][n * stride];
    float[][] scales = new float[3][n];
    int[][] zeros = new int[3][n];
    vector.quantize(n, k, x, 0, 255, ByteBuffer.wrap(q[0]), stride, scales[0], zeros[0]);
    scalar.quantize(n, k, x, 0, 255, ByteBuffer.wrap(q[1]), stride, scales[1], zeros[1]);
    ByteBuffer stored = ByteBuffer.allocateDirect(4 * n * k).order(ByteOrder.nativeOrder());
    stored.asFloatBuffer().put(x);     // the same floats where oneDNN would have stored them
    vector.quantizeNative(n, k, stored, 255, ByteBuffer.wrap(q[2]), stride, scales[2],
        zeros[2]);
    for (int i = 0; i < n * stride; i++) {
      assertEquals(q[1][i], q[0][i], "quantized value " + i);
      assertEquals(q[1][i], q[2][i], "quantized value " + i + " read from native memory");
    }
    for (int t = 0; t < n; t++) {
      assertEquals(scales[1][t], scales[2][t], "scale of row " + t + " read from native memory");
      for (int c = k; c < stride; c++) {
        assertEquals(zeros[0][t], q[0][t * stride + c] & 0xFF, "zero-point column of row " + t);
      }
    }
    ByteBuffer sums = ByteBuffer.allocateDirect(4 * n * outs).order(ByteOrder.nativeOrder());
    for (int i = 0; i < n * outs; i++) {
      sums.putInt(4 * i, rnd.nextInt(200_000) - 100_000);
    }
    float[] wScales = new float[outs];
    int[] rowSums = new int[outs];
    float[] bias = new float[outs];
    for (int o = 0; o < outs; o++) {
      wScales[o] = 1e-4f * (1 + rnd.nextFloat());
      rowSums[o] = rnd.nextInt(2000) - 1000;
      bias[o] = (float) rnd.nextGaussian();
    }
    float[] residual = new float[n * outs];
    for (int i = 0; i < residual.length; i++) {
      residual[i] = (float) rnd.nextGaussian();
    }
    for (int pass = 0; pass < 3; pass++) {
      float[][] y = new float[2][n * outs];
      float[][] lows = new float[2][n];
      float[][] highs = new float[2][n];
      Int8Passes[] both = {vector, scalar};
      for (int i = 0; i < 2; i++) {
        if (pass == 0) {
          both[i].rescaleGelu(n, outs, sums, scales[0], zeros[0], wScales, rowSums, bias, y[i], 0,
              lows[i], highs[i]);
        } else {
          both[i].rescale(n, outs, sums, scales[0], zeros[0], wScales, rowSums, bias,
              pass == 1 ? null : residual, 0, y[i], 0);
        }
      }
      for (int i = 0; i < n * outs; i++) {
        assertEquals(y[1][i], y[0][i], "pass " + pass + ", value " + i);
      }
      for (int t = 0; t < n; t++) {     // the GELU pass's row ranges, as quantize finds them
        assertEquals(lows[1][t], lows[0][t], "pass " + pass + ", low of row " + t);
        assertEquals(highs[1][t], highs[0][t], "pass " + pass + ", high of row " + t);
      }
    }
  }

  /** An int8 feed-forward's first layer: GELU(product + bias), the product as without it. */
  @Test
  void int8GeluLayerIsTheGeluOfTheBiasedProduct() {
    Random rnd = new Random(12);
    int k = 64;
    int outs = 40;
    int n = 300;      // two int8 blocks
    float[] w = new float[outs * k];
    for (int i = 0; i < w.length; i++) {
      w[i] = (float) (rnd.nextGaussian() * 0.2);
    }
    float[] x = new float[7 + n * k];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) rnd.nextGaussian();
    }
    float[] bias = new float[outs];
    for (int o = 0; o < outs; o++) {
      bias[o] = (float) rnd.nextGaussian();
    }
    Matrix m = Matrix.of(w, outs, k).in(Precision.INT8);
    float[] product = new float[n * outs];
    m.multiply(n, x, 7, product, 0, false);
    float[] y = new float[n * outs];
    m.activatedLinear(n, x, 7, bias, Activation.GELU, y);
    for (int i = 0; i < n * outs; i++) {
      double v = product[i] + bias[i % outs];
      assertEquals(Activation.GELU.exact(v), y[i], 1e-6 * Math.max(1, Math.abs(v)),
          "value " + i);
    }
  }
}
