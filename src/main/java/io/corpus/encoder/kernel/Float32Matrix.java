package io.corpus.encoder.kernel;

/**
 * float32 weights multiplied on the BLAS ({@link RowMajorBlas#linear}).
 *
 * @param values (rows, cols), row-major
 * @param rows output features
 * @param cols input features
 */
public record Float32Matrix(float[] values, int rows, int cols) implements Matrix {
  public Float32Matrix {
    if (values.length != (long) rows * cols) {
      throw new IllegalArgumentException("A (" + rows + ", " + cols + ") matrix holds "
          + (long) rows * cols + " values, not " + values.length);
    }
  }

  @Override
  public Precision precision() {
    return Precision.FLOAT32;
  }

  @Override
  public void multiply(int n, float[] x, int xOffset, float[] y, int yOffset,
      boolean accumulate) {
    RowMajorBlas.linear(n, cols, rows, x, xOffset, values, y, yOffset, accumulate);
  }

  @Override
  public float[] floats() {
    return values;
  }

  @Override
  public void row(int r, float[] out, int offset) {
    System.arraycopy(values, r * cols, out, offset, cols);
  }

  @Override
  public long bytes() {
    return 4L * values.length;
  }
}
