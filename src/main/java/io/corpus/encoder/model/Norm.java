package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * A norm's learned parameters over a width: a scale and a shift (a layer norm's, or an RMS
 * norm's whose shift is zeros), a scale alone (an RMS norm's), or no norm at all where a model
 * has none (ModernBERT's first layer attends to its input as it is). The model's norm kind says
 * how they apply.
 */
public sealed interface Norm extends Serializable permits Norm.Affine, Norm.Scale, Norm.None {

  /** A scale and a shift, each of the width. */
  record Affine(float[] scale, float[] shift) implements Norm {
    public Affine {
      if (scale.length != shift.length) {
        throw new IllegalArgumentException("A norm's scale of " + scale.length
            + " values and its shift of " + shift.length + " differ");
      }
    }
  }

  /** A scale alone. */
  record Scale(float[] scale) implements Norm {}

  /** No norm. */
  enum None implements Norm { INSTANCE }

  /** The absent norm. */
  static Norm none() {
    return None.INSTANCE;
  }

  /** Whether there is a norm. */
  default boolean present() {
    return !(this instanceof None);
  }
}
