package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * How one layer attends, where layers differ (ModernBERT alternates sliding-window and global
 * layers, each with its own rotary base).
 *
 * @param window W: each query sees the keys within W positions of it; 0 means the whole sequence
 *     (the model's {@code window} setting, if any, then applies)
 * @param rotary how q and k of each head are rotated by position right after their projection
 */
public record LayerAttention(int window, RotaryPositions rotary) implements Serializable {
  /** A global layer without rotary positions: BERT's every layer. */
  public static final LayerAttention PLAIN = new LayerAttention(0, RotaryPositions.NONE);

  /** A layer with half-split rotary positions of base θ. */
  public LayerAttention(int window, double ropeTheta) {
    this(window, RotaryPositions.halves(ropeTheta));
  }

  public LayerAttention {
    if (window < 0) {
      throw new IllegalArgumentException("a layer's window must be 0 (global) or positive, got "
          + window);
    }
    if (rotary == null) {
      throw new IllegalArgumentException("a layer's rotary positions are NONE, not null");
    }
  }
}
