package io.corpus.encoder.kernel;

import com.sun.jna.Memory;

/**
 * float32 weights multiplied by oneDNN's float32 matmul instead of the BLAS, where it is the
 * faster of the two on this processor ({@link Float32Products}): the same numbers as {@link
 * Float32Matrix} up to the order of the float32 sums. The values are held once, in native
 * memory, where oneDNN reads them; each block of inputs is copied there and its product read
 * back with the bias and residual added, or the GELU applied, as the reduced precisions' are
 * ({@link ReducedProducts#floating}). Callers cut a feed-forward into blocks of {@link
 * Matrix#BLOCK_ROWS} rows, as on the BLAS, so the work buffers are the same whichever library.
 */
public final class OneDnnFloat32Matrix extends OneDnnMatrix {
  private static final long serialVersionUID = 1L;
  private final NativeWeights values;   // (rows, cols) float32, row-major

  private OneDnnFloat32Matrix(NativeWeights values, int rows, int cols) {
    super(rows, cols);
    this.values = values;
  }

  /** {@code m}'s values copied to native memory. */
  static OneDnnFloat32Matrix of(Float32Matrix m) {
    return new OneDnnFloat32Matrix(NativeWeights.of(m.values()), m.rows(), m.cols());
  }

  @Override
  public Precision precision() {
    return Precision.FLOAT32;
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
