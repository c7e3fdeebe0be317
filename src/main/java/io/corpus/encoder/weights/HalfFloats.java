package io.corpus.encoder.weights;

/**
 * IEEE 754 half precision to float and back (Java 17 has no {@code Float.float16ToFloat} or
 * {@code Float.floatToFloat16}).
 */
final class HalfFloats {
  private HalfFloats() {}

  static float halfToFloat(short half) {
    int bits = half & 0xffff;
    int sign = (bits & 0x8000) << 16;
    int exponent = (bits >>> 10) & 0x1f;
    int mantissa = bits & 0x3ff;
    if (exponent == 0x1f) {                       // infinity or NaN
      return Float.intBitsToFloat(sign | 0x7f800000 | (mantissa << 13));
    }
    if (exponent == 0) {                          // zero or subnormal: mantissa · 2^-24
      float magnitude = mantissa * 0x1p-24f;
      return sign == 0 ? magnitude : -magnitude;
    }
    return Float.intBitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
  }

  /**
   * The half nearest to {@code value}, ties to even (as numpy's and PyTorch's casts): too large
   * values become infinities, too small ones subnormals or zero; NaN stays NaN.
   */
  static short floatToHalf(float value) {
    int bits = Float.floatToRawIntBits(value);
    int sign = (bits >>> 16) & 0x8000;
    int exponent = (bits >>> 23) & 0xff;
    int mantissa = bits & 0x7fffff;
    if (exponent == 0xff) {                       // infinity or NaN (kept quiet)
      return (short) (sign | 0x7c00 | (mantissa != 0 ? 0x200 : 0));
    }
    int e = exponent - 127 + 15;                  // the half's biased exponent
    if (e >= 0x1f) {
      return (short) (sign | 0x7c00);
    }
    if (e <= 0) {                                 // a half subnormal, or zero
      if (e < -10) {
        return (short) sign;
      }
      int shift = 14 - e;                         // 1 - e to the subnormal scale, 13 to 10 bits
      return (short) (sign | roundShift(mantissa | 0x800000, shift));
    }
    // A carry out of the mantissa raises the exponent, as it should (up to infinity).
    return (short) (sign | ((e << 10) + roundShift(mantissa, 13)));
  }

  /** {@code value >>> shift}, rounded to nearest, ties to even. */
  private static int roundShift(int value, int shift) {
    int kept = value >>> shift;
    int rest = value & ((1 << shift) - 1);
    int half = 1 << (shift - 1);
    return rest > half || (rest == half && (kept & 1) != 0) ? kept + 1 : kept;
  }
}
