package io.corpus.encoder.model;

import java.io.Serializable;
import java.util.Objects;

/**
 * Whether and how a layer rotates each head's q and k by position (RoPE), as the families'
 * configs say it: {@link #NONE}, or {@link Rotated} with its base and form.
 */
public sealed interface RotaryPositions extends Serializable
    permits RotaryPositions.None, RotaryPositions.Rotated {

  /** No rotary positions. */
  RotaryPositions NONE = None.INSTANCE;

  /** The half-split form over the whole head with base θ (positive), unscaled. */
  static Rotated halves(double theta) {
    return new Rotated(theta, 1, false);
  }

  /** No rotary positions. */
  enum None implements RotaryPositions {
    INSTANCE;

    @Override
    public String toString() {
      return "no rotary";
    }
  }

  /**
   * Rotary positions.
   *
   * @param theta the base θ, positive: pair i of the rotated values turns by position ·
   *     θ^(−2i/R)
   * @param fraction the share of each head's D values that is rotated, R = ⌊fraction · D⌋
   *     (NomicBERT's {@code rotary_emb_fraction}); the rest pass unchanged
   * @param interleaved pairs are neighbours (2i, 2i + 1), as GPT-J and NomicBERT's
   *     {@code rotary_emb_interleaved}; otherwise halves (i, i + R/2), as GPT-NeoX, ModernBERT
   * @param scaling how the frequencies are rescaled for long contexts (NTK, llama3), or
   *     {@link FrequencyScaling#NONE}
   */
  record Rotated(double theta, double fraction, boolean interleaved, FrequencyScaling scaling)
      implements RotaryPositions {

    /** Without frequency scaling. */
    public Rotated(double theta, double fraction, boolean interleaved) {
      this(theta, fraction, interleaved, FrequencyScaling.NONE);
    }

    public Rotated {
      if (!(theta > 0) || Double.isInfinite(theta)) {
        throw new IllegalArgumentException("a rotary base must be positive, got " + theta
            + " (RotaryPositions.NONE: no rotary positions)");
      }
      if (!(fraction > 0 && fraction <= 1)) {
        throw new IllegalArgumentException("a rotary fraction must be in (0, 1], got "
            + fraction);
      }
      Objects.requireNonNull(scaling, "scaling");
    }

    /** θ^(−2i/R) of pair i, rescaled as {@link #scaling} says. */
    double inverseFrequency(int i, int rotated) {
      return scaling.inverseFrequency(theta, i, rotated);
    }

    /** This form with its frequencies rescaled. */
    public Rotated scaled(FrequencyScaling by) {
      return new Rotated(theta, fraction, interleaved, by);
    }

    /** R, the rotated values of a head of width D. */
    public int rotatedWidth(int headWidth) {
      return (int) Math.floor(fraction * headWidth + 1e-9);
    }

    @Override
    public String toString() {
      return String.format("rotary θ %.0f", theta)
          + (fraction < 1 ? String.format(", %.0f %% of each head", 100 * fraction) : "")
          + (interleaved ? ", interleaved" : "")
          + scaling;
    }
  }
}
