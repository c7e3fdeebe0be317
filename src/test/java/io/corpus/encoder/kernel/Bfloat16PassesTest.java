package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The passes around a bfloat16 product: the Vector API's and the scalar ones give the same bits,
 * and the rounding is {@link Bfloat16Matrix#toBfloat16}'s (PyTorch's), ties, NaN and infinities
 * included.
 */
class Bfloat16PassesTest {
  @Test
  void roundingIsPyTorchsOnEveryLane() {
    float[] x = new float[53];     // three vectors of 16 and a tail
    Random rnd = new Random(3);
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) (rnd.nextGaussian() * Math.pow(10, rnd.nextInt(8) - 4));
    }
    x[0] = Float.NaN;
    x[1] = Float.POSITIVE_INFINITY;
    x[2] = Float.NEGATIVE_INFINITY;
    x[3] = Float.intBitsToFloat(0x3F808000);   // a tie, rounded to even (down)
    x[4] = Float.intBitsToFloat(0x3F818000);   // a tie, rounded to even (up)
    x[5] = -0f;
    x[6] = Float.MAX_VALUE;                    // rounds up to infinity
    x[7] = Float.intBitsToFloat(0x7FC00001);   // a NaN with a payload
    x[50] = Float.NaN;                         // in the tail
    for (Bfloat16Passes passes : new Bfloat16Passes[] {Bfloat16Passes.create(),
        new ScalarBfloat16Passes()}) {
      ByteBuffer out = ByteBuffer.allocateDirect(2 * 51).order(ByteOrder.nativeOrder());
      passes.round(51, x, 2, out);
      for (int i = 0; i < 51; i++) {
        assertEquals(Bfloat16Matrix.toBfloat16(x[2 + i]), out.getShort(2 * i),
            passes.getClass().getSimpleName() + ", value " + i + " (" + x[2 + i] + ")");
      }
    }
  }

  @Test
  void vectorAndScalarReadBackGiveTheSameBits() {
    Random rnd = new Random(5);
    int n = 4;
    int outs = 45;     // two vectors of 16 and a tail
    ByteBuffer products = ByteBuffer.allocateDirect(4 * n * outs).order(ByteOrder.nativeOrder());
    for (int i = 0; i < n * outs; i++) {
      products.putFloat(4 * i, (float) (rnd.nextGaussian() * 4));
    }
    float[] bias = new float[outs];
    for (int o = 0; o < outs; o++) {
      bias[o] = (float) rnd.nextGaussian();
    }
    float[] residual = new float[3 + n * outs];
    for (int i = 0; i < residual.length; i++) {
      residual[i] = (float) rnd.nextGaussian();
    }
    Bfloat16Passes[] both = {Bfloat16Passes.create(), new ScalarBfloat16Passes()};
    for (int form = 0; form < 4; form++) {
      float[][] y = new float[2][2 + n * outs];
      for (int i = 0; i < 2; i++) {
        switch (form) {
          case 0 -> both[i].addGelu(n, outs, products, bias, y[i], 2);
          case 1 -> both[i].add(n, outs, products, bias, null, 0, y[i], 2);
          case 2 -> both[i].add(n, outs, products, null, residual, 3, y[i], 2);
          default -> both[i].add(n, outs, products, bias, residual, 3, y[i], 2);
        }
      }
      for (int i = 0; i < y[0].length; i++) {
        assertEquals(y[1][i], y[0][i], "form " + form + ", value " + i);
      }
      float expected = form == 0 ? RationalErf.gelu(products.getFloat(0) + bias[0])
          : products.getFloat(0) + ((form == 1 ? 0 : residual[3]) + (form == 2 ? 0 : bias[0]));
      assertEquals(expected, y[0][2], "form " + form + ": the first value");
    }
  }
}
