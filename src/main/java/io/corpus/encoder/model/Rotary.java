package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Elementwise;

/**
 * Rotary positions (RoPE) on the first R = fraction · D values of a head: pair i (i &lt; R/2) at
 * position p is rotated by the angle p · θ^(−2i/R). The pair is (i, i + R/2) in the half-split
 * form of GPT-NeoX and ModernBERT, (2i, 2i + 1) in the interleaved form of GPT-J; values past R
 * are left alone. The cos and sin tables, (positions, R/2), are computed in double once and grown
 * when a longer sequence arrives. Not thread-safe (it grows); one per encoder and form.
 */
final class Rotary {
  private static final Elementwise MATH = Elementwise.INSTANCE;
  private final int rotated;                    // R
  private final boolean interleaved;
  private final double[] inverseFrequency;      // (R/2): θ^(−2i/R)
  private float[] cos = new float[0];           // (positions, R/2)
  private float[] sin = new float[0];           // (positions, R/2)
  private int positions;

  Rotary(int headWidth, RotaryPositions.Rotated form) {
    this.rotated = form.rotatedWidth(headWidth);
    if (rotated % 2 != 0 || rotated < 2) {
      throw new IllegalArgumentException("rotary positions need an even number of rotated "
          + "values per head, got " + rotated + " (" + form + ", head width " + headWidth + ")");
    }
    this.interleaved = form.interleaved();
    int half = rotated / 2;
    this.inverseFrequency = new double[half];
    for (int i = 0; i < half; i++) {
      inverseFrequency[i] = form.inverseFrequency(i, rotated);
    }
  }

  /** R/2, the pairs rotated. */
  int pairs() {
    return rotated / 2;
  }

  /** The head's value index of pair i's first member. */
  int first(int i) {
    return interleaved ? 2 * i : i;
  }

  /** The head's value index of pair i's second member. */
  int second(int i) {
    return interleaved ? 2 * i + 1 : i + rotated / 2;
  }

  /** The angle of pair i at position p, in double. */
  double angle(int position, int i) {
    return position * inverseFrequency[i];
  }

  /** Makes the tables cover positions 0..count-1. */
  void cover(int count) {
    if (count <= positions) {
      return;
    }
    int half = rotated / 2;
    int grown = Math.max(count, positions + positions / 2);
    float[] c = new float[grown * half];
    float[] s = new float[grown * half];
    for (int p = 0; p < grown; p++) {
      for (int i = 0; i < half; i++) {
        double a = angle(p, i);
        c[p * half + i] = (float) Math.cos(a);
        s[p * half + i] = (float) Math.sin(a);
      }
    }
    cos = c;
    sin = s;
    positions = grown;
  }

  /**
   * Rotates the values of one head at {@code offset} in x for {@code position}, in place:
   * (a, b) := (a·cos − b·sin, b·cos + a·sin) with a, b pair i's members. The tables must
   * {@link #cover} the position.
   */
  void rotate(float[] x, int offset, int position) {
    int half = rotated / 2;
    int row = position * half;
    if (!interleaved) {
      MATH.rotateHalves(x, offset, offset + half, cos, sin, row, half);
      return;
    }
    for (int i = 0; i < half; i++) {
      float a = x[offset + 2 * i];
      float b = x[offset + 2 * i + 1];
      float c = cos[row + i];
      float s = sin[row + i];
      x[offset + 2 * i] = a * c - b * s;
      x[offset + 2 * i + 1] = b * c + a * s;
    }
  }
}
