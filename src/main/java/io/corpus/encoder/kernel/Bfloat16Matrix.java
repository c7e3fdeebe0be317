package io.corpus.encoder.kernel;

import com.sun.jna.Memory;

/**
 * bfloat16 weights: each product's input is rounded to bfloat16 per batch and oneDNN sums the
 * products in float32 ({@link ReducedProducts}).
 */
public final class Bfloat16Matrix implements Matrix {
  private static final long serialVersionUID = 1L;
  private final short[] bits;       // (rows, cols) bfloat16, row-major
  private final int rows;
  private final int cols;
  private transient volatile Memory onNative;

  public Bfloat16Matrix(short[] bits, int rows, int cols) {
    if (bits.length != (long) rows * cols) {
      throw new IllegalArgumentException("A (" + rows + ", " + cols + ") matrix holds "
          + (long) rows * cols + " values, not " + bits.length);
    }
    this.bits = bits;
    this.rows = rows;
    this.cols = cols;
  }

  /** float32 values rounded to the nearest bfloat16, ties to even (NaN stays NaN). */
  public static Bfloat16Matrix round(float[] values, int rows, int cols) {
    short[] bits = new short[values.length];
    for (int i = 0; i < values.length; i++) {
      bits[i] = toBfloat16(values[i]);
    }
    return new Bfloat16Matrix(bits, rows, cols);
  }

  /**
   * The bfloat16 nearest to {@code value}, ties to even, as PyTorch's {@code .to(torch.bfloat16)}
   * rounds a tensor (its vectorized conversion writes every NaN as 0xFFFF).
   */
  public static short toBfloat16(float value) {
    if (Float.isNaN(value)) {
      return (short) 0xFFFF;
    }
    int bits = Float.floatToRawIntBits(value);
    int roundingBias = 0x7FFF + ((bits >>> 16) & 1);
    return (short) ((bits + roundingBias) >>> 16);
  }

  /** The float32 value of bfloat16 {@code bits}. */
  public static float toFloat(short bits) {
    return Float.intBitsToFloat((bits & 0xFFFF) << 16);
  }

  /** The bits, (rows, cols) row-major. */
  public short[] bits() {
    return bits;
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
    return Precision.BFLOAT16;
  }

  @Override
  public void multiply(int n, float[] x, int xOffset, float[] y, int yOffset,
      boolean accumulate) {
    ReducedProducts.forThisThread().bfloat16(n, x, xOffset, this, y, yOffset, accumulate);
  }

  /** The weights in native memory, copied there once per JVM. */
  Memory onNative() {
    Memory m = onNative;
    if (m == null) {
      synchronized (this) {
        if (onNative == null) {
          Memory copy = new Memory(2L * bits.length);
          copy.write(0, bits, 0, bits.length);
          onNative = copy;
        }
        m = onNative;
      }
    }
    return m;
  }

  @Override
  public float[] floats() {
    float[] values = new float[bits.length];
    for (int i = 0; i < bits.length; i++) {
      values[i] = toFloat(bits[i]);
    }
    return values;
  }

  @Override
  public long bytes() {
    return 2L * bits.length;
  }
}
