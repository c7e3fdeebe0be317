package io.corpus.encoder.model;

/**
 * Rotary positions (RoPE) in the half-split form of GPT-NeoX and ModernBERT: within a head's D
 * values, the pair (i, i + D/2) at position p is rotated by the angle p · θ^(−2i/D). The cos and
 * sin tables, (positions, D/2), are computed in double once and grown when a longer sequence
 * arrives. Not thread-safe (it grows); one per encoder.
 */
final class Rotary {
  private final int headWidth;                  // D
  private final double[] inverseFrequency;      // (D/2): θ^(−2i/D)
  private float[] cos = new float[0];           // (positions, D/2)
  private float[] sin = new float[0];           // (positions, D/2)
  private int positions;

  Rotary(int headWidth, double theta) {
    if (headWidth % 2 != 0) {
      throw new IllegalArgumentException("rotary positions need an even head width, got "
          + headWidth);
    }
    this.headWidth = headWidth;
    int half = headWidth / 2;
    this.inverseFrequency = new double[half];
    for (int i = 0; i < half; i++) {
      inverseFrequency[i] = 1.0 / Math.pow(theta, (2.0 * i) / headWidth);
    }
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
    int half = headWidth / 2;
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
   * Rotates the D values of one head at {@code offset} in x for {@code position}, in place:
   * (a, b) := (a·cos − b·sin, b·cos + a·sin) with a = x[i], b = x[i + D/2]. The tables must
   * {@link #cover} the position.
   */
  void rotate(float[] x, int offset, int position) {
    int half = headWidth / 2;
    int row = position * half;
    for (int i = 0; i < half; i++) {
      float a = x[offset + i];
      float b = x[offset + half + i];
      float c = cos[row + i];
      float s = sin[row + i];
      x[offset + i] = a * c - b * s;
      x[offset + half + i] = b * c + a * s;
    }
  }
}
