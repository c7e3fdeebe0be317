package io.corpus.encoder.kernel;

import java.nio.ByteBuffer;

/** {@link Int8Passes} a value at a time: for JVMs without the Vector API. */
final class ScalarInt8Passes implements Int8Passes {
  @Override
  public void quantize(int n, int k, float[] x, int xOffset, int qmax, ByteBuffer out,
      int stride, float[] scales, int[] zeroPoints) {
    for (int t = 0; t < n; t++) {
      int from = xOffset + t * k;
      float min = 0;
      float max = 0;
      for (int i = 0; i < k; i++) {
        min = Int8Passes.lower(min, x[from + i]);
        max = Int8Passes.higher(max, x[from + i]);
      }
      quantizeRow(t, k, x, from, min, max, qmax, out, stride, scales, zeroPoints);
    }
  }

  @Override
  public void quantizeNative(int n, int k, ByteBuffer x, int qmax, ByteBuffer out, int stride,
      float[] scales, int[] zeroPoints) {
    float[] rows = new float[n * k];     // a JVM without the Vector API: copied, kept simple
    x.asFloatBuffer().get(0, rows, 0, n * k);
    quantize(n, k, rows, 0, qmax, out, stride, scales, zeroPoints);
  }

  @Override
  public void quantizeInRange(int n, int k, float[] x, int xOffset, float[] lows,
      float[] highs, int qmax, ByteBuffer out, int stride, float[] scales, int[] zeroPoints) {
    for (int t = 0; t < n; t++) {
      quantizeRow(t, k, x, xOffset + t * k, lows[t], highs[t], qmax, out, stride, scales,
          zeroPoints);
    }
  }

  /**
   * Row t (k values of x from {@code from}) in the range [min, max], from byte t·stride of out,
   * its zero point in the stride − k bytes after it.
   */
  private static void quantizeRow(int t, int k, float[] x, int from, float min, float max,
      int qmax, ByteBuffer out, int stride, float[] scales, int[] zeroPoints) {
    int zero = Int8Passes.recorded(t, min, max, qmax, scales, zeroPoints);
    int to = t * stride;
    for (int i = 0; i < k; i++) {
      out.put(to + i, Int8Passes.quantized(x[from + i], scales[t], zero, qmax));
    }
    Int8Passes.zeroPointColumns(out, to, k, stride, zero);
  }

  @Override
  public void rescale(int n, int outs, ByteBuffer sums, float[] scales, int[] zeroPoints,
      float[] wScales, int[] rowSums, float[] bias, float[] addend, int addendOffset,
      float[] y, int yOffset) {
    for (int t = 0; t < n; t++) {
      float tokenScale = scales[t];
      int zero = zeroPoints[t];
      int at = yOffset + t * outs;
      int from = addendOffset + t * outs;
      for (int o = 0; o < outs; o++) {
        float v = wScales[o] * tokenScale
            * (sums.getInt(4 * (t * outs + o)) - zero * rowSums[o]);
        y[at + o] = v + Int8Passes.added(bias, o, addend, from + o);
      }
    }
  }

  @Override
  public void rescaleGelu(int n, int outs, ByteBuffer sums, float[] scales, int[] zeroPoints,
      float[] wScales, int[] rowSums, float[] bias, float[] y, int yOffset, float[] lows,
      float[] highs) {
    for (int t = 0; t < n; t++) {
      float tokenScale = scales[t];
      int zero = zeroPoints[t];
      int at = yOffset + t * outs;
      float min = 0;
      float max = 0;
      for (int o = 0; o < outs; o++) {
        float v = wScales[o] * tokenScale
            * (sums.getInt(4 * (t * outs + o)) - zero * rowSums[o]);
        y[at + o] = RationalErf.gelu(v + bias[o]);
        min = Int8Passes.lower(min, y[at + o]);
        max = Int8Passes.higher(max, y[at + o]);
      }
      if (lows != null) {
        lows[t] = min;
        highs[t] = max;
      }
    }
  }
}
