package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * How a layer rotates each head's q and k by position (RoPE), as the families' configs say it.
 *
 * @param theta the base θ: pair i of the rotated values turns by position · θ^(−2i/R); 0 means
 *     no rotary positions
 * @param fraction the share of each head's D values that is rotated, R = ⌊fraction · D⌋
 *     (NomicBERT's {@code rotary_emb_fraction}); the rest pass unchanged
 * @param interleaved pairs are neighbours (2i, 2i + 1), as GPT-J and NomicBERT's
 *     {@code rotary_emb_interleaved}; otherwise halves (i, i + R/2), as GPT-NeoX, ModernBERT
 * @param ntkFactor f of NTK scaling as GTE's {@code NTKScalingRotaryEmbedding} applies it (its
 *     {@code rope_scaling} of type ntk): the base becomes θ·f and every frequency is divided by
 *     f^(2/R); 1 means none
 */
public record RotaryPositions(double theta, double fraction, boolean interleaved,
    double ntkFactor) implements Serializable {
  /** No rotary positions. */
  public static final RotaryPositions NONE = new RotaryPositions(0, 1, false);

  /** Without NTK scaling. */
  public RotaryPositions(double theta, double fraction, boolean interleaved) {
    this(theta, fraction, interleaved, 1);
  }

  public RotaryPositions {
    if (!(theta >= 0) || Double.isInfinite(theta)) {
      throw new IllegalArgumentException("a rotary base must be 0 (none) or positive, got "
          + theta);
    }
    if (!(fraction > 0 && fraction <= 1)) {
      throw new IllegalArgumentException("a rotary fraction must be in (0, 1], got " + fraction);
    }
    if (!(ntkFactor >= 1) || Double.isInfinite(ntkFactor)) {
      throw new IllegalArgumentException("an NTK factor must be at least 1, got " + ntkFactor);
    }
  }

  /** θ^(−2i/R) of pair i, NTK-scaled when asked. */
  double inverseFrequency(int i, int rotated) {
    double exponent = (2.0 * i) / rotated;
    return 1.0 / Math.pow(theta * ntkFactor, exponent) / Math.pow(ntkFactor, 2.0 / rotated);
  }

  /** The half-split form over the whole head with base θ (0: none). */
  public static RotaryPositions halves(double theta) {
    return theta > 0 ? new RotaryPositions(theta, 1, false) : NONE;
  }

  /** Whether q and k are rotated at all. */
  public boolean any() {
    return theta > 0;
  }

  /** R, the rotated values of a head of width D. */
  public int rotatedWidth(int headWidth) {
    return (int) Math.floor(fraction * headWidth + 1e-9);
  }

  @Override
  public String toString() {
    return any() ? String.format("rotary θ %.0f", theta)
        + (fraction < 1 ? String.format(", %.0f %% of each head", 100 * fraction) : "")
        + (interleaved ? ", interleaved" : "")
        + (ntkFactor != 1 ? String.format(", NTK ×%s", ntkFactor) : "") : "no rotary";
  }
}
