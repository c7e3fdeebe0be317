package io.corpus.encoder.kernel;

/**
 * Prints which kernels a fresh JVM takes, one line each: the element-wise passes' description,
 * the int8 and bfloat16 passes' classes, whether {@link RationalErf} fuses its multiply-adds, and
 * that GELU's worst distance from the exact one over [−20, 20] (relative above |x| = 1). Run
 * with the JIT flags under test.
 */
public final class VectorKernelsProbe {
  private VectorKernelsProbe() {}

  public static void main(String[] args) {
    System.out.println(Elementwise.INSTANCE.describe());
    System.out.println(Int8Passes.create().getClass().getSimpleName());
    System.out.println(Bfloat16Passes.create().getClass().getSimpleName());
    System.out.println("fused multiply-add " + VectorApi.fusedMultiplyAdd());
    System.out.println(rationalGeluWorstError());
  }

  static double rationalGeluWorstError() {
    double worst = 0;
    for (int i = -200_000; i <= 200_000; i++) {
      float v = i * 1e-4f;
      double exact = Activation.GELU.exact(v);
      worst = Math.max(worst, Math.abs(RationalErf.gelu(v) - exact) / Math.max(1, Math.abs(v)));
    }
    return worst;
  }
}
