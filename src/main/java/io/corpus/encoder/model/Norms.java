package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * A model's norms: what kind, their eps, where each layer puts them, whether a norm follows the
 * last layer, whether they shift.
 *
 * @param kind LayerNorm or RMSNorm
 * @param eps eps of every norm
 * @param placement where a layer's norms sit
 * @param finalNorm a norm after the last layer
 * @param shift whether the norms have a shift (β); a checkpoint without one gets zeros
 */
public record Norms(NormKind kind, double eps, Placement placement, boolean finalNorm,
    boolean shift) implements Serializable {

  /** Where a layer's norms sit around its attention f and feed-forward g. */
  public enum Placement {
    /** x = norm(x + f(x)), then norm(x + g(x)): BERT and its kin. */
    POST,
    /** x = x + f(norm(x)), then x + g(norm(x)); a first layer may attend to x unnormed. */
    PRE,
    /**
     * x = x + norm′(f(norm(x))), then x + norm′(g(norm(x))): each sublayer's output normed
     * again before it is added (Gemma3's post_attention and post_feedforward norms).
     */
    SANDWICH;

    /** Whether a sublayer reads the stream normed (PRE, SANDWICH) rather than as it is. */
    public boolean first() {
      return this != POST;
    }
  }

  public Norms {
    if (!(eps > 0) || Double.isInfinite(eps)) {
      throw new IllegalArgumentException("layer-norm-eps must be a positive number, got " + eps);
    }
  }
}
