package io.corpus.encoder.model;

/**
 * What a model adds to a block of one head's attention scores after the scaled q·k and before the
 * masks: a bias by distance ({@link RelativeBias}) or DeBERTa's position terms
 * ({@link DisentangledBias}).
 */
interface ScoreTerms {
  /**
   * Adds head h's terms to a block of scores: {@code s[base + i · queryStride + j · keyStride]}
   * for query row {@code q0 + i} and key row {@code k0 + j} of the sequence starting at row
   * {@code first} (positions from the batch).
   */
  void add(TokenBatch batch, int first, int h, float[] s, int base, int q0, int bq, int k0,
      int bk, int queryStride, int keyStride);
}
