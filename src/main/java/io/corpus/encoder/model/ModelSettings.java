package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Activation;
import java.io.Serializable;

/**
 * How the encoder computes, beyond what its weights say (the weights give L, E, F and P).
 *
 * @param heads H; must divide the width E
 * @param window W: a key is allowed when |query − key| ≤ W; 0 means no window
 * @param layerNormEps eps inside the square root of every layer norm
 */
public record ModelSettings(
    int heads,
    Activation activation,
    boolean normFirst,
    boolean finalNorm,
    double layerNormEps,
    boolean causal,
    int window,
    PositionalEncoding positional) implements Serializable {

  public ModelSettings {
    if (heads < 1) {
      throw new IllegalArgumentException("heads must be at least 1, got " + heads);
    }
    if (window < 0) {
      throw new IllegalArgumentException("window must be 0 (none) or positive, got " + window);
    }
    if (!(layerNormEps > 0) || Double.isInfinite(layerNormEps)) {
      throw new IllegalArgumentException("layer-norm-eps must be a positive number, got "
          + layerNormEps);
    }
  }

  /** Whether a query at position q may attend to a key at position k (both real tokens). */
  public boolean allows(int q, int k) {
    return (!causal || k <= q) && (window == 0 || Math.abs(q - k) <= window);
  }

  /** Whether any position rule (causal, window) applies beyond padding. */
  public boolean hasPositionMask() {
    return causal || window > 0;
  }
}
