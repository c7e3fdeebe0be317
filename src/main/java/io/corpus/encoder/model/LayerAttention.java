package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * How one layer attends, where layers differ (ModernBERT alternates sliding-window and global
 * layers, each with its own rotary base).
 *
 * @param window W: each query sees the keys within W positions of it; 0 means the whole sequence
 *     (the model's {@code window} setting, if any, then applies)
 * @param ropeTheta the rotary base θ: q and k of each head are rotated by position · θ^(−2i/D)
 *     right after their projection; 0 means no rotary positions
 */
public record LayerAttention(int window, double ropeTheta) implements Serializable {
  /** A global layer without rotary positions: BERT's every layer. */
  public static final LayerAttention PLAIN = new LayerAttention(0, 0);

  public LayerAttention {
    if (window < 0) {
      throw new IllegalArgumentException("a layer's window must be 0 (global) or positive, got "
          + window);
    }
    if (!(ropeTheta >= 0) || Double.isInfinite(ropeTheta)) {
      throw new IllegalArgumentException("a rotary base must be 0 (none) or positive, got "
          + ropeTheta);
    }
  }
}
