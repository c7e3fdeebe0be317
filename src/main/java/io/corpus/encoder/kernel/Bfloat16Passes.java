package io.corpus.encoder.kernel;

import java.nio.ByteBuffer;

/**
 * The passes around a bfloat16 product ({@link ReducedProducts}): rounding its input to bfloat16
 * before it, and adding the layer's bias and residual (or applying a GELU) to its float32 output
 * after it. They touch every input and output value (a value at a time, they took more of the
 * job than oneDNN's products on AMX); {@link #create} makes the Vector API's lane-wise form where
 * the JVM compiles the Vector API ({@link VectorApi}), else a scalar one. Both give the same bits.
 */
interface Bfloat16Passes {
  /**
   * {@code count} values of x from {@code xOffset}, each rounded to the nearest bfloat16 as
   * {@link Bfloat16Matrix#toBfloat16} rounds it, written as 16-bit values in native order into
   * {@code out} from byte 0.
   */
  void round(int count, float[] x, int xOffset, ByteBuffer out);

  /**
   * y (n, N) = product + (addend + bias), the product read where oneDNN wrote it ({@code
   * products}: n·N floats in native order from byte 0), the bias (width N) and the addend (a
   * residual, or y itself to accumulate; row-major with y's stride) each left out when null.
   */
  void add(int n, int outs, ByteBuffer products, float[] bias, float[] addend,
      int addendOffset, float[] y, int yOffset);

  /**
   * y (n, N) = GELU(product + bias), the product read as {@link #add} reads it, the GELU by
   * {@link RationalErf} (within 2e-7 of the exact one: the next product rounds it to bfloat16,
   * whose step is four orders coarser), written from y's offset.
   */
  void addGelu(int n, int outs, ByteBuffer products, float[] bias, float[] y, int yOffset);

  /** Passes for the calling thread's use. */
  static Bfloat16Passes create() {
    Bfloat16Passes passes =
        VectorApi.load(Bfloat16Passes.class, "io.corpus.encoder.kernel.VectorBfloat16Passes");
    return passes != null ? passes : new ScalarBfloat16Passes();
  }
}
