package io.corpus.encoder.kernel;

import java.nio.ByteBuffer;

/** {@link Bfloat16Passes} a value at a time: for JVMs without the Vector API. */
final class ScalarBfloat16Passes implements Bfloat16Passes {
  @Override
  public void round(int count, float[] x, int xOffset, ByteBuffer out) {
    for (int i = 0; i < count; i++) {
      out.putShort(2 * i, Bfloat16Matrix.toBfloat16(x[xOffset + i]));
    }
  }

  @Override
  public void add(int n, int outs, ByteBuffer products, float[] bias, float[] addend,
      int addendOffset, float[] y, int yOffset) {
    for (int t = 0; t < n; t++) {
      int at = yOffset + t * outs;
      int from = addendOffset + t * outs;
      for (int o = 0; o < outs; o++) {
        y[at + o] = products.getFloat(4 * (t * outs + o))
            + Int8Passes.added(bias, o, addend, from + o);
      }
    }
  }

  @Override
  public void addGelu(int n, int outs, ByteBuffer products, float[] bias, float[] y,
      int yOffset) {
    for (int t = 0; t < n; t++) {
      int at = yOffset + t * outs;
      for (int o = 0; o < outs; o++) {
        y[at + o] = RationalErf.gelu(products.getFloat(4 * (t * outs + o)) + bias[o]);
      }
    }
  }
}
