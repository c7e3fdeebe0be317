package io.corpus.encoder.weights;

/** IEEE 754 half precision to float (Java 17 has no {@code Float.float16ToFloat}). */
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
}
