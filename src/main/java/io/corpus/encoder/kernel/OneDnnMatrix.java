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
  /** Output features: Y's width. */
  final int rows;
  /** Input features: X's width. */
  final int cols;

  OneDnnMatrix(int rows, int cols) {
    this.rows = rows;
    this.cols = cols;
  }

  @Override
  public final int rows() {
    return rows;
  }

  @Override
  public final int cols() {
    return cols;
  }

  /** oneDNN's matmul of a block of inputs by these weights, before the passes around it. */
  abstract Matmuls.Kind kind();

  /** The weights in native memory, where oneDNN reads them. */
  abstract Memory onNative();

  /**
   * y (n, rows) = x · Wᵀ + bias + addend (either null: none; the addend may be y), or with
   * {@code gelu} GELU(x · Wᵀ + bias), on the calling thread's products: here with bfloat16 or
   * float32 inputs ({@link ReducedProducts#floating}).
   */
  void product(ReducedProducts products, int n, float[] x, int xOffset, float[] bias,
      float[] addend, int addendOffset, float[] y, int yOffset, boolean gelu) {
    products.floating(n, x, xOffset, this, bias, addend, addendOffset, y, yOffset, gelu);
  }

  /**
   * With a second layer held as this one is, in bfloat16 or float32, oneDNN adds the bias and
   * applies the activation as it stores the first product, where the second product reads it
   * ({@link ReducedProducts#floatingFeedForward}); otherwise, and for int8's uint8 inputs, the
   * two products one after the other.
   */
  @Override
  public void feedForward(int n, float[] x, int xOffset, float[] bias, Activation activation,
      Matrix second, float[] secondBias, float[] addend, int addendOffset, float[] y,
      int yOffset, float[] hidden) {
    if (second.getClass() != getClass() || kind().src() == OneDnn.U8) {
      Matrix.super.feedForward(n, x, xOffset, bias, activation, second, secondBias, addend,
          addendOffset, y, yOffset, hidden);
      return;
    }
    ReducedProducts.forThisThread().floatingFeedForward(n, x, xOffset, this, bias,
        OneDnn.eltwise(activation), (OneDnnMatrix) second, secondBias, addend, addendOffset, y,
        yOffset);
  }

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
