package io.corpus.encoder.kernel;

import com.sun.jna.Memory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ShortBuffer;
import java.util.function.Consumer;

/**
 * bfloat16 weights: each product's input is rounded to bfloat16 per batch and oneDNN sums the
 * products in float32 ({@link ReducedProducts}). The bits are held once, in native memory, where
 * oneDNN reads them ({@link NativeWeights}).
 */
public final class Bfloat16Matrix extends OneDnnMatrix {
  private static final long serialVersionUID = 1L;
  private final NativeWeights bits;   // (rows, cols) bfloat16, row-major

  public Bfloat16Matrix(short[] bits, int rows, int cols) {
    this(NativeWeights.of(checked(bits, rows, cols)), rows, cols);
  }

  private Bfloat16Matrix(NativeWeights bits, int rows, int cols) {
    super(rows, cols);
    this.bits = bits;
  }

  /**
   * A (rows, cols) matrix whose bits {@code fill} writes, as little-endian 16-bit values, into
   * the native memory it is given (a checkpoint's BF16 tensor, read there from its file);
   * null on a processor that is not little-endian, where the caller widens the tensor instead.
   */
  public static Bfloat16Matrix stored(int rows, int cols, Consumer<ByteBuffer> fill) {
    if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
      return null;
    }
    return new Bfloat16Matrix(NativeWeights.filled(2L * rows * cols, fill), rows, cols);
  }

  /**
   * The rows of {@code parts} one after the other (a fused q, k, v projection from its three
   * tensors), their bits copied natively, never widened.
   */
  public static Bfloat16Matrix stack(Bfloat16Matrix... parts) {
    int cols = parts[0].cols;
    int rows = 0;
    for (Bfloat16Matrix part : parts) {
      if (part.cols != cols) {
        throw new IllegalArgumentException("Stacked matrices have " + cols + " and "
            + part.cols + " columns");
      }
      rows += part.rows;
    }
    return new Bfloat16Matrix(NativeWeights.filled(2L * rows * cols, target -> {
      for (Bfloat16Matrix part : parts) {
        target.put(part.bits.memory().getByteBuffer(0, part.bits.bytes()));
      }
    }), rows, cols);
  }

  /**
   * The flat index of the first infinite or NaN value, or -1 when every value is finite; read
   * in place (copied out in pieces, Qwen3-0.6B's checks put 1.1 GB through the heap).
   */
  public long firstNonFinite() {
    ShortBuffer values = bits.memory().getByteBuffer(0, bits.bytes())
        .order(ByteOrder.nativeOrder()).asShortBuffer();
    for (int i = 0; i < values.limit(); i++) {
      if ((values.get(i) & 0x7F80) == 0x7F80) {   // the exponent all ones
        return i;
      }
    }
    return -1;
  }

  /** The value at flat index {@code index}. */
  public float at(long index) {
    return toFloat(bits.shorts(index, 1)[0]);
  }

  private static short[] checked(short[] bits, int rows, int cols) {
    if (bits.length != (long) rows * cols) {
      throw new IllegalArgumentException("A (" + rows + ", " + cols + ") matrix holds "
          + (long) rows * cols + " values, not " + bits.length);
    }
    return bits;
  }

  /** float32 values rounded to the nearest bfloat16, ties to even (NaN stays NaN). */
  public static Bfloat16Matrix round(float[] values, int rows, int cols) {
    short[] bits = new short[values.length];
    for (int i = 0; i < values.length; i++) {
      bits[i] = toBfloat16(values[i]);
    }
    return new Bfloat16Matrix(bits, rows, cols);
  }

  /** Whether every value is a bfloat16 (its low 16 bits zero): rounding changes none. */
  public static boolean holdsOnlyBfloat16(float[] values) {
    for (float v : values) {
      if ((Float.floatToRawIntBits(v) & 0xFFFF) != 0) {
        return false;
      }
    }
    return true;
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

  /** The bits, (rows, cols) row-major: a copy. */
  public short[] bits() {
    return bits.shorts(0, rows * cols);
  }

  @Override
  public Precision precision() {
    return Precision.BFLOAT16;
  }

  /**
   * The rows of one bfloat16 product ({@link ReducedProducts#BFLOAT16_BLOCK}): the activation
   * and the next product's rounding read a block while it is still in the core's cache.
   */
  @Override
  public int blockRows() {
    return ReducedProducts.BFLOAT16_BLOCK;
  }

  /** bfloat16 inputs by these weights, summed in float32. */
  @Override
  Matmuls.Kind kind() {
    return new Matmuls.Kind(OneDnn.BF16, OneDnn.F32, cols, rows, 0, false);
  }

  /** The weights in native memory. */
  @Override
  Memory onNative() {
    return bits.memory();
  }

  @Override
  public float[] floats() {
    float[] values = new float[rows * cols];
    for (int r = 0; r < rows; r++) {
      row(r, values, r * cols);
    }
    return values;
  }

  @Override
  public void row(int r, float[] out, int offset) {
    short[] row = bits.shorts((long) r * cols, cols);
    for (int c = 0; c < cols; c++) {
      out[offset + c] = toFloat(row[c]);
    }
  }

  @Override
  public long bytes() {
    return bits.bytes();
  }
}
