package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * How a token weights its top experts ({@code moe_normalize_expert_weights}): by their routing
 * probabilities as they are ({@link #ROUTED}), or divided by those probabilities' p-norm
 * ({@link PNorm}), as MegaBlocks does when the setting is truthy.
 */
public sealed interface ExpertWeights extends Serializable
    permits ExpertWeights.Routed, ExpertWeights.PNorm {

  /** The routing probabilities as they are. */
  ExpertWeights ROUTED = new Routed();

  /** What one top weight {@code w} adds to the norm's sum. */
  double term(double w);

  /** The probabilities as they are. */
  record Routed() implements ExpertWeights {
    @Override
    public double term(double w) {
      return 0;
    }

    @Override
    public String toString() {
      return "as routed";
    }
  }

  /** Divided by (Σ wᵖ)^(1/p) over the token's top experts; p positive. */
  record PNorm(double p) implements ExpertWeights {
    public PNorm {
      if (!(p > 0) || Double.isInfinite(p)) {
        throw new IllegalArgumentException("a p-norm's p is positive, got " + p
            + " (ExpertWeights.ROUTED: the weights as they are)");
      }
    }

    @Override
    public double term(double w) {
      return Math.pow(w, p);
    }

    @Override
    public String toString() {
      return "divided by their " + p + "-norm";
    }
  }
}
