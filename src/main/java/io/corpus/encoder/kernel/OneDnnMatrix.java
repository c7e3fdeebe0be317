package io.corpus.encoder.kernel;

import com.sun.jna.Memory;

/**
 * Weights held in native memory whose products run on oneDNN ({@link ReducedProducts}): in a
 * reduced precision, or in float32 where oneDNN's float32 matmul outruns the BLAS ({@link
 * Float32Products}). A block of rows at a time: the layer's bias and residual are added, or a
 * GELU applied (by {@link RationalErf}: the next product reduces it again; in int8 on VNNI or AMX
 * by oneDNN as it stores the product), as the product is read back into float32, with no pass of
 * their own; other activations take one.
 */
abstract sealed class OneDnnMatrix implements Matrix
    permits Bfloat16Matrix, Int8Matrix, OneDnnFloat32Matrix {
  private static final long serialVersionUID = 1L;

  /** oneDNN's matmul of a block of inputs by these weights, before the passes around it. */
  abstract Matmuls.Kind kind();

  /** The weights in native memory, where oneDNN reads them. */
  abstract Memory onNative();

  /**
   * y (n, rows) = x · Wᵀ + bias + addend (either null: none; the addend may be y), or with
   * {@code gelu} GELU(x · Wᵀ + bias), on the calling thread's products.
   */
  abstract void product(ReducedProducts products, int n, float[] x, int xOffset, float[] bias,
      float[] addend, int addendOffset, float[] y, int yOffset, boolean gelu);

  @Override
  public final void multiply(int n, float[] x, int xOffset, float[] y, int yOffset,
      boolean accumulate) {
    product(ReducedProducts.forThisThread(), n, x, xOffset, null, accumulate ? y : null,
        yOffset, y, yOffset, false);
  }

  @Override
  public final void linear(int n, float[] x, int xOffset, float[] bias, float[] addend,
      int addendOffset, float[] y, int yOffset) {
    product(ReducedProducts.forThisThread(), n, x, xOffset, bias, addend, addendOffset, y,
        yOffset, false);
  }

  @Override
  public final void activatedLinear(int n, float[] x, int xOffset, float[] bias,
      Activation activation, float[] y) {
    if (activation != Activation.GELU) {
      Matrix.super.activatedLinear(n, x, xOffset, bias, activation, y);
      return;
    }
    product(ReducedProducts.forThisThread(), n, x, xOffset, bias, null, 0, y, 0, true);
  }
}
