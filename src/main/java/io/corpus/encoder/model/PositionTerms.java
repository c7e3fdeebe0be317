package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * What every attention score adds by where its key stands from its query, the same in every
 * layer: nothing ({@link #NONE}: positions come from the embeddings or rotary), a bias by
 * distance ({@link ScoreBias}: MPNet's relative buckets, JinaBERT's ALiBi) or DeBERTa's
 * disentangled terms ({@link DisentangledPositions}). A model has one of them.
 */
public sealed interface PositionTerms extends Serializable
    permits PositionTerms.None, ScoreBias, DisentangledPositions {

  /** Scores as q·k makes them. */
  PositionTerms NONE = new None();

  /** Scores as q·k makes them. */
  record None() implements PositionTerms {}
}
