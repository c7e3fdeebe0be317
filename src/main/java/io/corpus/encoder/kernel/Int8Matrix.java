package io.corpus.encoder.kernel;

import com.sun.jna.Memory;

/**
 * int8 weights as ONNX Runtime's dynamic quantization makes them (symmetric, one scale per output
 * row); activations are quantized per token as each product runs ({@link ReducedProducts}). The
 * values are held once, in native memory, where oneDNN reads them ({@link NativeWeights}).
 */
public final class Int8Matrix extends ReducedMatrix {
  private static final long serialVersionUID = 1L;
  /** Symmetric int8 spans -127..127, as ONNX Runtime's symmetric int8 does. */
  static final int LIMIT = 127;
  private final NativeWeights values;   // (rows, cols), row-major
  private final float[] scales;     // (rows): W[r][c] ≈ scales[r] · values[r][c]
  private final int[] rowSums;      // (rows): Σ_c values[r][c], for the activations' zero points
  private final int rows;
  private final int cols;

  private Int8Matrix(byte[] values, float[] scales, int rows, int cols) {
    this.values = NativeWeights.of(values);
    this.scales = scales;
    this.rows = rows;
    this.cols = cols;
    this.rowSums = new int[rows];
    for (int r = 0; r < rows; r++) {
      int sum = 0;
      for (int c = 0; c < cols; c++) {
        sum += values[r * cols + c];
      }
      rowSums[r] = sum;
    }
  }

  /**
   * Quantizes each row as ONNX Runtime's {@code quantize_dynamic} does with per-channel
   * symmetric int8: the range [min(0, row), max(0, row)] made symmetric, scale = 2·absmax / 254
   * in double rounded to float (1 for a row of zeros), values round(w / scale) to nearest even,
   * clipped to ±127.
   */
  public static Int8Matrix quantize(float[] w, int rows, int cols) {
    if (w.length != (long) rows * cols) {
      throw new IllegalArgumentException("A (" + rows + ", " + cols + ") matrix holds "
          + (long) rows * cols + " values, not " + w.length);
    }
    byte[] q = new byte[w.length];
    float[] scales = new float[rows];
    for (int r = 0; r < rows; r++) {
      float absMax = 0;
      for (int c = 0; c < cols; c++) {
        absMax = Math.max(absMax, Math.abs(w[r * cols + c]));
      }
      // compute_scale_zp: the range over the steps in double, then float
      double steps = (double) (absMax + absMax) / (2 * LIMIT);
      float scale = steps < Float.MIN_NORMAL ? 1f : (float) steps;
      scales[r] = scale;
      for (int c = 0; c < cols; c++) {
        float v = (float) Math.rint(w[r * cols + c] / scale);
        q[r * cols + c] = (byte) Math.max(-LIMIT, Math.min(LIMIT, v));
      }
    }
    return new Int8Matrix(q, scales, rows, cols);
  }

  /** The int8 values, (rows, cols) row-major: a copy. */
  public byte[] values() {
    return values.bytes(0, rows * cols);
  }

  /** Each output row's scale. */
  public float[] scales() {
    return scales.clone();
  }

  /** The scales themselves, not a copy: for the products. */
  float[] scalesView() {
    return scales;
  }

  int[] rowSums() {
    return rowSums;
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
    return Precision.INT8;
  }

  @Override
  void product(ReducedProducts products, int n, float[] x, int xOffset, float[] bias,
      float[] addend, int addendOffset, float[] y, int yOffset, boolean gelu) {
    products.int8(n, x, xOffset, this, bias, addend, addendOffset, y, yOffset, gelu);
  }

  /**
   * A GELU feed-forward with an int8 second layer: the hidden rows' ranges found as the first
   * product writes them ({@link ReducedProducts#int8FeedForward}); the same bits.
   */
  @Override
  public void feedForward(int n, float[] x, int xOffset, float[] bias, Activation activation,
      Matrix second, float[] secondBias, float[] addend, int addendOffset, float[] y,
      int yOffset, float[] hidden) {
    if (activation != Activation.GELU || !(second instanceof Int8Matrix v)) {
      super.feedForward(n, x, xOffset, bias, activation, second, secondBias, addend,
          addendOffset, y, yOffset, hidden);
      return;
    }
    ReducedProducts.forThisThread().int8FeedForward(n, x, xOffset, this, bias, v, secondBias,
        addend, addendOffset, y, yOffset, hidden);
  }

  /**
   * The rows of one int8 product ({@link ReducedProducts#INT8_BLOCK}): the GELU and the next
   * product's quantizing read a block while it is still in the core's cache.
   */
  @Override
  public int blockRows() {
    return ReducedProducts.INT8_BLOCK;
  }

  /** uint8 activations by these int8 weights, summed in int32. */
  @Override
  Matmuls.Kind kind() {
    return new Matmuls.Kind(OneDnn.U8, OneDnn.S32, cols, rows, 0, false);
  }

  /** The int8 values in native memory. */
  @Override
  Memory onNative() {
    return values.memory();
  }

  @Override
  public float[] floats() {
    float[] f = new float[rows * cols];
    for (int r = 0; r < rows; r++) {
      row(r, f, r * cols);
    }
    return f;
  }

  @Override
  public void row(int r, float[] out, int offset) {
    byte[] q = values.bytes((long) r * cols, cols);
    for (int c = 0; c < cols; c++) {
      out[offset + c] = scales[r] * q[c];
    }
  }

  @Override
  public long bytes() {
    return values.bytes() + 8L * rows;
  }
}
