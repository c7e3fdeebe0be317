package io.corpus.encoder.model;

import io.corpus.encoder.common.ConfigName;
import java.io.Serializable;
import java.util.Arrays;

/**
 * A pooled vector made 4 or 32 times smaller, as sentence-transformers' {@code
 * quantize_embeddings} makes it, in float32 as numpy computes it there:
 *
 * <ul>
 *   <li>{@link #UINT8}: trunc((v − min) / step), step = (max − min) / 255 per dimension, from
 *       per-dimension {@link Ranges}; 0..255;
 *   <li>{@link #INT8}: trunc((v − min) / step − 128); −128..127;
 *   <li>{@link #UBINARY}: the signs (v > 0), 8 entries a value, the first the highest bit
 *       ({@code np.packbits}); 0..255;
 *   <li>{@link #BINARY}: the same byte − 128; −128..127.
 * </ul>
 *
 * numpy's cast of a value outside the type wraps it; here it is clamped to the type's range (a
 * value outside only happens with ranges from other vectors). A dimension whose min equals its
 * max (a step of 0, where numpy divides by zero) gives the type's lowest value. A vector whose
 * width is not a multiple of 8 has its last binary value padded with zero bits, vector by vector
 * (sentence-transformers packs the whole matrix at once and needs widths that are).
 */
public enum Quantization implements ConfigName {
  NONE, INT8, UINT8, BINARY, UBINARY;

  /**
   * Per-dimension ranges: the smallest and largest value of each dimension over the vectors
   * calibrated on.
   *
   * @param min (d)
   * @param max (d)
   */
  public record Ranges(float[] min, float[] max) implements Serializable {
    public Ranges {
      if (min.length != max.length || min.length == 0) {
        throw new IllegalArgumentException("quantization ranges need as many minimums as "
            + "maximums, at least one, got " + min.length + " and " + max.length);
      }
      for (int i = 0; i < min.length; i++) {
        if (!(min[i] <= max[i]) || !Float.isFinite(min[i]) || !Float.isFinite(max[i])) {
          throw new IllegalArgumentException("quantization range " + i + " is [" + min[i]
              + ", " + max[i] + "], not a finite interval");
        }
      }
    }

    /** d, the entries the ranges are for. */
    public int width() {
      return min.length;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Ranges r && Arrays.equals(min, r.min) && Arrays.equals(max, r.max);
    }

    @Override
    public int hashCode() {
      return 31 * Arrays.hashCode(min) + Arrays.hashCode(max);
    }
  }

  @Override
  public String configName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** Whether it needs per-dimension {@link Ranges}. */
  public boolean ranged() {
    return this == INT8 || this == UINT8;
  }

  /** Whether its values are 0..255 (else −128..127). */
  public boolean unsigned() {
    return this == UINT8 || this == UBINARY;
  }

  /** How many values a vector of {@code d} entries becomes. */
  public int width(int d) {
    return this == BINARY || this == UBINARY ? (d + 7) / 8 : d;
  }

  /** The values of vector {@code v}; {@code ranges} for INT8 and UINT8, else unused. */
  public int[] apply(float[] v, Ranges ranges) {
    return switch (this) {
      case NONE -> throw new IllegalStateException("no quantization");
      case INT8, UINT8 -> ranged(v, ranges);
      case BINARY, UBINARY -> packed(v);
    };
  }

  /**
   * The values of vector {@code v} as a table holds them: {@code short[]} (0..255) where
   * {@link #unsigned}, else {@code byte[]} (never wrapped signed bytes for 0..255).
   */
  public Object written(float[] v, Ranges ranges) {
    int[] q = apply(v, ranges);
    if (unsigned()) {
      short[] values = new short[q.length];
      for (int i = 0; i < q.length; i++) {
        values[i] = (short) q[i];
      }
      return values;
    }
    byte[] values = new byte[q.length];
    for (int i = 0; i < q.length; i++) {
      values[i] = (byte) q[i];
    }
    return values;
  }

  private int[] ranged(float[] v, Ranges ranges) {
    if (ranges == null || ranges.width() != v.length) {
      throw new IllegalArgumentException(configName() + " needs ranges of " + v.length
          + " entries, got " + (ranges == null ? "none" : ranges.width()));
    }
    int low = this == INT8 ? -128 : 0;
    int[] out = new int[v.length];
    for (int i = 0; i < v.length; i++) {
      float start = ranges.min()[i];
      float step = (ranges.max()[i] - start) / 255f;
      float x = (v[i] - start) / step;
      if (this == INT8) {
        x -= 128f;
      }
      out[i] = step > 0 && !Float.isNaN(x) ? Math.max(low, Math.min(low + 255, (int) x)) : low;
    }
    return out;
  }

  private int[] packed(float[] v) {
    int[] out = new int[width(v.length)];
    for (int i = 0; i < v.length; i++) {
      if (v[i] > 0) {
        out[i / 8] |= 0x80 >>> (i % 8);
      }
    }
    if (this == BINARY) {
      for (int i = 0; i < out.length; i++) {
        out[i] -= 128;
      }
    }
    return out;
  }
}
