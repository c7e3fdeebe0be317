package io.corpus.encoder.kernel;

import com.sun.jna.Memory;

/**
 * float32 weights multiplied by oneDNN's float32 matmul instead of the BLAS, where it is the
 * faster of the two on this processor ({@link Float32Products}): the same numbers as {@link
 * Float32Matrix} up to the order of the float32 sums. The values are held once, in native
 * memory, where oneDNN reads them; each block of inputs is copied there and its product read
 * back with the bias and residual added, or the GELU applied, as the reduced precisions' are
 * ({@link ReducedProducts#float32}). Callers cut a feed-forward into blocks of {@link
 * Matrix#BLOCK_ROWS} rows, as on the BLAS, so the work buffers are the same whichever library.
 */
public final class OneDnnFloat32Matrix extends OneDnnMatrix {
  private static final long serialVersionUID = 1L;
  private final NativeWeights values;   // (rows, cols) float32, row-major
  private final int rows;
  private final int cols;

  private OneDnnFloat32Matrix(NativeWeights values, int rows, int cols) {
    this.values = values;
    this.rows = rows;
    this.cols = cols;
  }

  /** {@code m}'s values copied to native memory. */
  static OneDnnFloat32Matrix of(Float32Matrix m) {
    return new OneDnnFloat32Matrix(NativeWeights.of(m.values()), m.rows(), m.cols());
  }

  @Override
  public int rows() {
    return rows;
  }

  @Override
  public int cols() {
    return cols;
  }

  @Override
  public Precision precision() {
    return Precision.FLOAT32;
  }

  @Override
  void product(ReducedProducts products, int n, float[] x, int xOffset, float[] bias,
      float[] addend, int addendOffset, float[] y, int yOffset, boolean gelu) {
    products.float32(n, x, xOffset, this, bias, addend, addendOffset, y, yOffset, gelu);
  }

  /**
   * With a second layer on oneDNN too, the hidden values stay in native memory between the two
   * products, oneDNN adding the bias and applying the activation as it stores them ({@link
   * ReducedProducts#float32FeedForward}).
   */
  @Override
  public void feedForward(int n, float[] x, int xOffset, float[] bias, Activation activation,
      Matrix second, float[] secondBias, float[] addend, int addendOffset, float[] y,
      int yOffset, float[] hidden) {
    if (!(second instanceof OneDnnFloat32Matrix v)) {
      super.feedForward(n, x, xOffset, bias, activation, second, secondBias, addend,
          addendOffset, y, yOffset, hidden);
      return;
    }
    ReducedProducts.forThisThread().float32FeedForward(n, x, xOffset, this, bias,
        OneDnn.eltwise(activation), v, secondBias, addend, addendOffset, y, yOffset);
  }

  @Override
  Matmuls.Kind kind() {
    return new Matmuls.Kind(OneDnn.F32, OneDnn.F32, cols, rows, 0, false);
  }

  @Override
  Memory onNative() {
    return values.memory();
  }

  @Override
  public float[] floats() {
    return values.floats(0, rows * cols);
  }

  @Override
  public void row(int r, float[] out, int offset) {
    System.arraycopy(values.floats((long) r * cols, cols), 0, out, offset, cols);
  }

  @Override
  public long bytes() {
    return values.bytes();
  }
}
