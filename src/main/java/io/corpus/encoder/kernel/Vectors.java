package io.corpus.encoder.kernel;

/** Element-wise passes over row-major buffers. */
public final class Vectors {
  private Vectors() {}

  /** Each of {@code rows} rows of y (width {@code width}) := bias. */
  public static void fillRows(float[] y, int yOffset, int rows, float[] bias) {
    int width = bias.length;
    for (int r = 0; r < rows; r++) {
      System.arraycopy(bias, 0, y, yOffset + r * width, width);
    }
  }

  /** Each of {@code rows} rows of y (width {@code width}) := x row + bias. */
  public static void copyPlusBias(float[] x, int xOffset, float[] y, int yOffset, int rows,
      float[] bias) {
    int width = bias.length;
    for (int r = 0; r < rows; r++) {
      int xo = xOffset + r * width;
      int yo = yOffset + r * width;
      for (int i = 0; i < width; i++) {
        y[yo + i] = x[xo + i] + bias[i];
      }
    }
  }

  /** y[i] += x[i] for {@code length} values. */
  public static void add(float[] x, int xOffset, float[] y, int yOffset, int length) {
    for (int i = 0; i < length; i++) {
      y[yOffset + i] += x[xOffset + i];
    }
  }

  /** y[i] *= x[i] for {@code length} values. */
  public static void multiply(float[] x, int xOffset, float[] y, int yOffset, int length) {
    for (int i = 0; i < length; i++) {
      y[yOffset + i] *= x[xOffset + i];
    }
  }
}
