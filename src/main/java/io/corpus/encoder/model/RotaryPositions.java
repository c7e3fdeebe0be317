package io.corpus.encoder.model;

import java.io.Serializable;
import java.util.Objects;

/**
 * How a layer rotates each head's q and k by position (RoPE), as the families' configs say it.
 *
 * @param theta the base θ: pair i of the rotated values turns by position · θ^(−2i/R); 0 means
 *     no rotary positions
 * @param fraction the share of each head's D values that is rotated, R = ⌊fraction · D⌋
 *     (NomicBERT's {@code rotary_emb_fraction}); the rest pass unchanged
 * @param interleaved pairs are neighbours (2i, 2i + 1), as GPT-J and NomicBERT's
 *     {@code rotary_emb_interleaved}; otherwise halves (i, i + R/2), as GPT-NeoX, ModernBERT
 * @param scaling how the frequencies are rescaled for long contexts (NTK, llama3), or
 *     {@link FrequencyScaling#NONE}
 */
public record RotaryPositions(double theta, double fraction, boolean interleaved,
    FrequencyScaling scaling) implements Serializable {
  /** No rotary positions. */
  public static final RotaryPositions NONE = new RotaryPositions(0, 1, false);

  /** Without frequency scaling. */
  public RotaryPositions(double theta, double fraction, boolean interleaved) {
    this(theta, fraction, interleaved, FrequencyScaling.NONE);
  }

  public RotaryPositions {
    if (!(theta >= 0) || Double.isInfinite(theta)) {
      throw new IllegalArgumentException("a rotary base must be 0 (none) or positive, got "
          + theta);
    }
    if (!(fraction > 0 && fraction <= 1)) {
      throw new IllegalArgumentException("a rotary fraction must be in (0, 1], got " + fraction);
    }
    Objects.requireNonNull(scaling, "scaling");
  }

  /** θ^(−2i/R) of pair i, rescaled as {@link #scaling} says. */
  double inverseFrequency(int i, int rotated) {
    return scaling.inverseFrequency(theta, i, rotated);
  }

  /** This form with its frequencies rescaled. */
  public RotaryPositions scaled(FrequencyScaling by) {
    return new RotaryPositions(theta, fraction, interleaved, by);
  }

  /** The half-split form over the whole head with base θ (positive; {@link #NONE}: none). */
  public static RotaryPositions halves(double theta) {
    if (!(theta > 0)) {
      throw new IllegalArgumentException("a rotary base must be positive, got " + theta
          + " (RotaryPositions.NONE: no rotary positions)");
    }
    return new RotaryPositions(theta, 1, false);
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
        + scaling : "no rotary";
  }
}
