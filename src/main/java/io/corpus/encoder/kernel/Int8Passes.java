package io.corpus.encoder.kernel;

import java.nio.ByteBuffer;

/**
 * The passes around an int8 product ({@link ReducedProducts}): quantizing each token's
 * activations to uint8 before it, and turning the int32 sums back into float32 after it. They
 * touch every input and output value, so done a value at a time with {@code Math.rint} (13 ns a
 * value here) they cost more than the product; {@link #create} makes the Vector API's lane-wise
 * form where the JVM compiles the Vector API ({@link VectorApi}), else a scalar one, for one
 * thread. Both round with the float trick (v + 1.5·2²³ − 1.5·2²³, exact round-half-even for
 * |v| < 2²²), so they give the same bytes.
 */
interface Int8Passes {
  /** Adding and subtracting this rounds a float of magnitude below 2²² to the nearest even. */
  float ROUNDER = 12582912f;

  /**
   * Each of the n rows of x (width K) as uint8 with its own scale and zero point, as ONNX
   * Runtime's DynamicQuantizeLinear does for a whole tensor: range [min(0, row), max(0, row)],
   * scale = range / qmax, zero point round(-min / scale), values round(x / scale) + zero point,
   * rounded to nearest even and clipped to 0..qmax (a row of zeros: scale 1, zero point 0),
   * written into {@code out} from byte 0 (oneDNN's source buffer, or a heap one), row t from
   * byte t·stride, followed by its zero point in each of the row's stride − K remaining bytes
   * (the weights' zero-point columns, {@link Int8Matrix}).
   */
  void quantize(int n, int k, float[] x, int xOffset, int qmax, ByteBuffer out, int stride,
      float[] scales, int[] zeroPoints);

  /**
   * {@link #quantize} of n rows read from native memory ({@code x}: n·K floats in native order
   * from byte 0, a direct buffer, as oneDNN stores a product): the same bytes, scales and zero
   * points as from the same floats on the heap.
   */
  void quantizeNative(int n, int k, ByteBuffer x, int qmax, ByteBuffer out, int stride,
      float[] scales, int[] zeroPoints);

  /**
   * {@link #quantize}, each row's range given (lows[t] = min(0, row t), highs[t] = max(0, row
   * t), as {@link #rescaleGelu} finds them while writing the rows): the same bytes, scales and
   * zero points, without the pass that looks for the range.
   */
  void quantizeInRange(int n, int k, float[] x, int xOffset, float[] lows, float[] highs,
      int qmax, ByteBuffer out, int stride, float[] scales, int[] zeroPoints);

  /**
   * y (n, N) = scales[t] · wScales[o] · (sums[t][o] − zeroPoints[t] · rowSums[o]) + (addend
   * + bias): the float32 product from the int32 sums of the quantized values (rowSums all 0
   * where the weights' zero-point columns took the zero points off), read where oneDNN
   * wrote them ({@code sums}: n·N ints in native order from byte 0, a direct buffer), with the
   * layer's bias (null: none) and a residual (null: none; it may be y itself) added in the
   * same pass, so no pass of its own writes them into y first.
   */
  void rescale(int n, int outs, ByteBuffer sums, float[] scales, int[] zeroPoints,
      float[] wScales, int[] rowSums, float[] bias, float[] addend, int addendOffset,
      float[] y, int yOffset);

  /**
   * y (n, N) = GELU(product + bias), the product as {@link #rescale} makes it, in the same pass;
   * the GELU by {@link RationalErf}: the next product quantizes it to 8 bits. Each row's range
   * as {@link #quantizeInRange} takes it goes into lows and highs, unless they are null.
   */
  void rescaleGelu(int n, int outs, ByteBuffer sums, float[] scales, int[] zeroPoints,
      float[] wScales, int[] rowSums, float[] bias, float[] y, int yOffset, float[] lows,
      float[] highs);

  /** What the rescale adds to a product's value: addend + bias, either left out when null. */
  static float added(float[] bias, int o, float[] addend, int at) {
    if (addend == null) {
      return bias == null ? 0f : bias[o];
    }
    return bias == null ? addend[at] : addend[at] + bias[o];
  }

  /**
   * The lower of a range's bound and a value: a NaN value leaves the bound as it is (a row's
   * range is looked for this way in every pass, lane for lane, {@link VectorInt8Passes}).
   */
  static float lower(float bound, float v) {
    return v < bound ? v : bound;
  }

  /** The higher of a range's bound and a value, as {@link #lower}. */
  static float higher(float bound, float v) {
    return v > bound ? v : bound;
  }

  /**
   * Row t's scale and zero point for values in [min, max], recorded in scales and zeroPoints;
   * the zero point returned.
   */
  static int recorded(int t, float min, float max, int qmax, float[] scales, int[] zeroPoints) {
    float scale = scale(min, max, qmax);
    int zero = zeroPoint(min, scale, qmax);
    scales[t] = scale;
    zeroPoints[t] = zero;
    return zero;
  }

  /** One value quantized at this scale and zero point, rounded to nearest even, clipped. */
  static byte quantized(float v, float scale, int zero, int qmax) {
    float q = (v / scale + ROUNDER) - ROUNDER + zero;
    return (byte) (int) Math.max(0, Math.min(qmax, q));
  }

  /** A quantized row's zero point in its bytes k..stride of out from {@code to}. */
  static void zeroPointColumns(ByteBuffer out, int to, int k, int stride, int zero) {
    for (int i = k; i < stride; i++) {
      out.put(to + i, (byte) zero);
    }
  }

  /** The scale of a row whose values lie in [min, max] (min ≤ 0 ≤ max); 1 for zeros. */
  static float scale(float min, float max, int qmax) {
    float scale = (max - min) / qmax;
    return scale >= Float.MIN_NORMAL ? scale : 1f;
  }

  /** The zero point of a row whose smallest value is min (≤ 0), at this scale (0 for min 0). */
  static int zeroPoint(float min, float scale, int qmax) {
    return (int) Math.max(0, Math.min(qmax, (-min / scale + ROUNDER) - ROUNDER));
  }

  /** Passes for the calling thread's use. */
  static Int8Passes create() {
    Int8Passes passes =
        VectorApi.load(Int8Passes.class, "io.corpus.encoder.kernel.VectorInt8Passes");
    return passes != null ? passes : new ScalarInt8Passes();
  }
}
