package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * What the final states of the tokens that are pooled go through first: nothing, or a block of
 * the family's own code (NV-Embed's {@link LatentAttention}).
 */
public sealed interface BeforePooling extends Serializable
    permits BeforePooling.Nothing, LatentAttention {

  /** The states are pooled as they are. */
  BeforePooling NOTHING = Nothing.INSTANCE;

  /** The states are pooled as they are. */
  enum Nothing implements BeforePooling { INSTANCE }
}
