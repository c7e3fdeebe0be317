package io.corpus.encoder.kernel;

import java.util.Random;

/**
 * Run in a JVM of its own by {@link OlderProcessorTest}, whose {@code encoder.onednn.max-isa}
 * caps oneDNN's kernels at an older processor's: prints the instruction set, the activations'
 * largest quantized value, the worst gap between oneDNN's int8 product and the same quantized
 * arithmetic in double, and whether bfloat16 is refused.
 */
public final class Int8Probe {
  private Int8Probe() {}

  public static void main(String[] args) {
    Random rnd = new Random(13);
    int n = 48;
    int k = 512;
    int outs = 64;
    float[] w = new float[outs * k];
    float[] x = new float[n * k];
    for (int i = 0; i < w.length; i++) {
      w[i] = (i % 3 == 0 ? 1f : -1f) * (0.5f + rnd.nextFloat());   // large int8 values
    }
    for (int i = 0; i < x.length; i++) {
      x[i] = 4f + rnd.nextFloat();      // all positive: quantized near qmax, where pairs saturate
    }
    Int8Matrix m = Int8Matrix.quantize(w, outs, k);
    float[] y = new float[n * outs];
    m.multiply(n, x, 0, y, 0, false);
    int qmax = ReducedProducts.activationMax();
    byte[] q = new byte[n * k];
    float[] scales = new float[n];
    int[] zeros = new int[n];
    ReducedProducts.quantizeRows(n, k, x, 0, qmax, q, scales, zeros);
    byte[] values = m.values();       // a copy of the native weights: taken once
    float[] weightScales = m.scales();
    double worst = 0;
    for (int t = 0; t < n; t++) {
      for (int o = 0; o < outs; o++) {
        double sum = 0;
        for (int i = 0; i < k; i++) {
          sum += (double) scales[t] * ((q[t * k + i] & 0xFF) - zeros[t]) * weightScales[o]
              * values[o * k + i];
        }
        worst = Math.max(worst, Math.abs(sum - y[t * outs + o]) / (1 + Math.abs(sum)));
      }
    }
    System.out.println("isa=" + OneDnn.isa().label());
    System.out.println("qmax=" + qmax);
    System.out.println("worst=" + worst);
    System.out.println("bfloat16=" + Precision.BFLOAT16.refusal().orElse("runs"));
    System.setProperty(Precision.EMULATED_BFLOAT16, "true");
    System.out.println("bfloat16-emulated=" + Precision.BFLOAT16.refusal().orElse("runs"));
  }
}
