package io.corpus.encoder.model;

/**
 * What a model adds to a block of one head's attention scores after the scaled q·k and before the
 * masks: a bias by distance ({@link RelativeBias}) or DeBERTa's position terms
 * ({@link DisentangledBias}).
 */
interface ScoreTerms {
  /** No terms: the scores as q·k makes them. */
  ScoreTerms NONE = new ScoreTerms() {
    @Override
    public void add(TokenBatch batch, int first, int h, float[] s, int base, int q0, int bq,
        int k0, int bk, int queryStride, int keyStride) {
    }
  };

  /**
   * Readies the terms for a layer of a batch, before its attention: {@code qkv} its fused
   * projections, {@code w} its weights.
   */
  default void layer(TokenBatch batch, LayerWeights w, float[] qkv) {
  }

  /**
   * Whether each sequence is attended on its own, after {@link #sequence}: its terms are made
   * per sequence (DeBERTa's), not tiled across the batch.
   */
  default boolean perSequence() {
    return false;
  }

  /** Readies the terms for the sequence of {@code t} rows from row {@code first}. */
  default void sequence(TokenBatch batch, int first, int t) {
  }

  /**
   * Adds head h's terms to a block of scores: {@code s[base + i · queryStride + j · keyStride]}
   * for query row {@code q0 + i} and key row {@code k0 + j} of the sequence starting at row
   * {@code first} (positions from the batch).
   */
  void add(TokenBatch batch, int first, int h, float[] s, int base, int q0, int bq, int k0,
      int bk, int queryStride, int keyStride);
}
