package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * How a rotary form rescales its frequencies θ^(−2i/R) for contexts longer than the model was
 * trained on, as the families' {@code rope_scaling} says: none, NTK (GTE) or Llama 3's
 * wavelength bands.
 */
public sealed interface FrequencyScaling extends Serializable {
  /** No rescaling. */
  FrequencyScaling NONE = new None();

  /** The inverse frequency of pair i of R rotated values under base θ. */
  double inverseFrequency(double theta, int i, int rotated);

  /** NTK scaling by f, or none when f is 1. */
  static FrequencyScaling ntk(double factor) {
    return factor == 1 ? NONE : new Ntk(factor);
  }

  /** θ^(−2i/R). */
  record None() implements FrequencyScaling {
    @Override
    public double inverseFrequency(double theta, int i, int rotated) {
      return 1.0 / Math.pow(theta, (2.0 * i) / rotated);
    }

    @Override
    public String toString() {
      return "";
    }
  }

  /**
   * NTK scaling as GTE's {@code NTKScalingRotaryEmbedding} applies it (its {@code rope_scaling}
   * of type ntk): the base becomes θ·f and every frequency is divided by f^(2/R).
   */
  record Ntk(double factor) implements FrequencyScaling {
    public Ntk {
      if (!(factor > 1) || Double.isInfinite(factor)) {
        throw new IllegalArgumentException("an NTK factor must be above 1, got " + factor);
      }
    }

    @Override
    public double inverseFrequency(double theta, int i, int rotated) {
      return 1.0 / Math.pow(theta * factor, (2.0 * i) / rotated)
          / Math.pow(factor, 2.0 / rotated);
    }

    @Override
    public String toString() {
      return String.format(", NTK ×%s", factor);
    }
  }

  /**
   * Llama 3.1's scaling ({@code rope_type: llama3}, transformers'
   * {@code _compute_llama3_parameters}): with the original context C, a pair whose wavelength
   * λ = 2π / frequency is longer than C / lowFrequencyFactor turns {@code factor} times slower;
   * shorter than C / highFrequencyFactor, unchanged; in between, a blend of the two weighted by
   * s = (C / λ − low) / (high − low): (1 − s) · frequency / factor + s · frequency.
   */
  record Llama3(double factor, double lowFrequencyFactor, double highFrequencyFactor,
      double originalPositions) implements FrequencyScaling {
    public Llama3 {
      if (!(factor >= 1) || Double.isInfinite(factor)
          || !(lowFrequencyFactor > 0) || !(highFrequencyFactor > lowFrequencyFactor)
          || Double.isInfinite(highFrequencyFactor) || !(originalPositions > 0)
          || Double.isInfinite(originalPositions)) {
        throw new IllegalArgumentException("llama3 rope scaling needs factor >= 1, 0 < "
            + "low_freq_factor < high_freq_factor and original_max_position_embeddings > 0, got "
            + this);
      }
    }

    @Override
    public double inverseFrequency(double theta, int i, int rotated) {
      double frequency = NONE.inverseFrequency(theta, i, rotated);
      double wavelength = 2 * Math.PI / frequency;
      if (wavelength < originalPositions / highFrequencyFactor) {
        return frequency;
      }
      if (wavelength > originalPositions / lowFrequencyFactor) {
        return frequency / factor;
      }
      double smooth = (originalPositions / wavelength - lowFrequencyFactor)
          / (highFrequencyFactor - lowFrequencyFactor);
      return (1 - smooth) * frequency / factor + smooth * frequency;
    }

    @Override
    public String toString() {
      return String.format(", llama3 ×%s over %.0f positions", factor, originalPositions);
    }
  }
}
