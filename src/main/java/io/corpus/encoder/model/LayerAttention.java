package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * How one layer attends, where layers differ (ModernBERT alternates sliding-window and global
 * layers, each with its own rotary base).
 *
 * @param window the keys each query sees by distance: a layer's own window, or GLOBAL (the
 *     model's {@code window} setting, if any, then applies)
 * @param rotary how q and k of each head are rotated by position right after their projection
 */
public record LayerAttention(Window window, RotaryPositions rotary) implements Serializable {
  /** A global layer without rotary positions: BERT's every layer. */
  public static final LayerAttention PLAIN = new LayerAttention(Window.GLOBAL,
      RotaryPositions.NONE);

  /** A layer with half-split rotary positions of base θ. */
  public LayerAttention(Window window, double ropeTheta) {
    this(window, RotaryPositions.halves(ropeTheta));
  }

  public LayerAttention {
    if (window == null || rotary == null) {
      throw new IllegalArgumentException("a layer's window and rotary positions are "
          + "Window.GLOBAL and RotaryPositions.NONE, not null");
    }
  }
}
