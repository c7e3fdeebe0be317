package io.corpus.encoder.kernel;

import com.sun.jna.Memory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * int8 weights as ONNX Runtime's dynamic quantization makes them (symmetric, one scale per output
 * row); activations are quantized per token as each product runs ({@link ReducedProducts}). The
 * values are held once, in native memory, where oneDNN reads them ({@link NativeWeights}).
 *
 * <p>Where that pays ({@link #zeroPointColumnsPay}), each row is held with a few more columns,
 * the <em>zero-point columns</em>: int8 values that add up to minus the row's sum. A token
 * quantized with zero point z carries z in the matching columns of its input ({@link
 * Int8Passes#quantize}), so the int32 sum oneDNN computes is already Σ (q − z)·w, exactly: no
 * pass takes the zero points off, and oneDNN can scale the sums, add the bias and apply a GELU
 * as it stores them ({@link Matmuls#runInt8Gelu}), none of which its own zero points (one per
 * tensor) allow. A row whose values sum to s takes ⌈|s| / 127⌉ of them: 8 to 59 on MiniLM's
 * rows of 384 and 1,536 values.
 */
public final class Int8Matrix extends OneDnnMatrix {
  private static final long serialVersionUID = 1L;
  /** Symmetric int8 spans -127..127, as ONNX Runtime's symmetric int8 does. */
  static final int LIMIT = 127;
  private final NativeWeights values;   // (rows, cols + zeroColumns), row-major
  private final NativeWeights scalesOnNative;   // the scales, as oneDNN reads them
  private final float[] scales;     // (rows): W[r][c] ≈ scales[r] · values[r][c]
  private final int[] zeroPointSums;   // what the passes take off per zero point: Σ_c or 0s
  private final boolean hasZeroColumns;
  private final int zeroColumns;

  private Int8Matrix(byte[] values, float[] scales, int rows, int cols, boolean zeroColumns) {
    super(rows, cols);
    this.scales = scales;
    int[] rowSums = new int[rows];     // Σ_c values[r][c]
    int largest = 0;
    for (int r = 0; r < rows; r++) {
      int sum = 0;
      for (int c = 0; c < cols; c++) {
        sum += values[r * cols + c];
      }
      rowSums[r] = sum;
      largest = Math.max(largest, Math.abs(sum));
    }
    this.hasZeroColumns = zeroColumns;
    this.zeroColumns = zeroColumns ? (largest + LIMIT - 1) / LIMIT : 0;
    int stride = cols + this.zeroColumns;
    byte[] held = new byte[rows * stride];
    for (int r = 0; r < rows; r++) {
      System.arraycopy(values, r * cols, held, r * stride, cols);
      int left = -rowSums[r];
      for (int c = cols; c < stride; c++) {
        int part = Math.max(-LIMIT, Math.min(LIMIT, left));
        held[r * stride + c] = (byte) part;
        left -= part;
      }
    }
    this.values = NativeWeights.of(held);
    ByteBuffer floats = ByteBuffer.allocate(4 * rows).order(ByteOrder.nativeOrder());
    floats.asFloatBuffer().put(scales);
    this.scalesOnNative = NativeWeights.of(floats.array());
    this.zeroPointSums = zeroColumns ? new int[rows] : rowSums;
  }

  /**
   * Whether weights quantized here get zero-point columns: where oneDNN has int8 dot products
   * (VNNI or AMX), on which it also applies the GELU as it stores a product; on AVX2 alone its
   * kernels for that were slower than the Java passes, and the columns cost the products 4 to
   * 6 % for nothing (speed log). Decided where the weights are quantized (a cluster's driver):
   * an executor on another processor computes the same int32 sums either way, its Java passes
   * taking off whatever zero-point term the columns did not.
   */
  static boolean zeroPointColumnsPay() {
    return OneDnn.available() && OneDnn.isa().exactInt8();
  }

  /**
   * Quantizes each row as ONNX Runtime's {@code quantize_dynamic} does with per-channel
   * symmetric int8: the range [min(0, row), max(0, row)] made symmetric, scale = 2·absmax / 254
   * in double rounded to float (1 for a row of zeros), values round(w / scale) to nearest even,
   * clipped to ±127.
   */
  public static Int8Matrix quantize(float[] w, int rows, int cols) {
    return quantize(w, rows, cols, zeroPointColumnsPay());
  }

  /** {@link #quantize}, held with zero-point columns or without. */
  static Int8Matrix quantize(float[] w, int rows, int cols, boolean zeroColumns) {
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
    return new Int8Matrix(q, scales, rows, cols, zeroColumns);
  }

  /** The int8 values, (rows, cols) row-major, without the zero-point columns: a copy. */
  public byte[] values() {
    byte[] out = new byte[rows * cols];
    for (int r = 0; r < rows; r++) {
      System.arraycopy(values.bytes((long) r * stride(), cols), 0, out, r * cols, cols);
    }
    return out;
  }

  /** The row's zero-point columns: int8 values summing to minus the sum of its values. */
  byte[] zeroColumnsOf(int r) {
    return values.bytes((long) r * stride() + cols, zeroColumns);
  }

  /** Whether each row is held with its zero-point columns (perhaps none, its sum being 0). */
  boolean hasZeroPointColumns() {
    return hasZeroColumns;
  }

  /**
   * What the Java passes multiply by each token's zero point and take off its int32 sums: the
   * row sums, or zeros where the zero-point columns already took them off.
   */
  int[] zeroPointSums() {
    return zeroPointSums;
  }

  /** How many zero-point columns follow each row's values. */
  int zeroColumns() {
    return zeroColumns;
  }

  /** Columns a row holds in native memory, and a quantized input row's width. */
  int stride() {
    return cols + zeroColumns;
  }

  /** The scales in native memory, as oneDNN reads them. */
  Memory scalesOnNative() {
    return scalesOnNative.memory();
  }

  /** Each output row's scale. */
  public float[] scales() {
    return scales.clone();
  }

  /** The scales themselves, not a copy: for the products. */
  float[] scalesView() {
    return scales;
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

  /** uint8 activations by these int8 weights and their zero-point columns, summed in int32. */
  @Override
  Matmuls.Kind kind() {
    return new Matmuls.Kind(OneDnn.U8, OneDnn.S32, stride(), rows, 0, false);
  }

  /** The int8 values and zero-point columns in native memory, (rows, stride). */
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
    byte[] q = values.bytes((long) r * stride(), cols);
    for (int c = 0; c < cols; c++) {
      out[offset + c] = scales[r] * q[c];
    }
  }

  @Override
  public long bytes() {
    return values.bytes() + scalesOnNative.bytes() + 8L * rows;
  }
}
