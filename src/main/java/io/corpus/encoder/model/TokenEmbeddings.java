package io.corpus.encoder.model;

import io.corpus.encoder.kernel.LayerNorm;

/**
 * BERT's embedding layer over a batch: for each token t of a sequence,
 * {@code x[t] = LayerNorm(word[id_t] + position[t] + tokenType[type_t])}, appended to the
 * {@link TokenBatch} as the encoder's input rows.
 */
public final class TokenEmbeddings {
  private final EmbeddingWeights weights;
  private final float eps;

  public TokenEmbeddings(EmbeddingWeights weights, double layerNormEps) {
    this.weights = weights;
    this.eps = (float) layerNormEps;
  }

  public EmbeddingWeights weights() {
    return weights;
  }

  /**
   * The first id outside the vocabulary, or -1 when all are in range; {@code typeIds} (may be
   * null: all 0) are checked the same way against the token types, reported as -2 - index.
   */
  public int firstInvalid(int[] ids, int[] typeIds) {
    for (int t = 0; t < ids.length; t++) {
      if (ids[t] < 0 || ids[t] >= weights.vocabularySize()) {
        return t;
      }
      if (typeIds != null && (typeIds[t] < 0 || typeIds[t] >= weights.tokenTypes())) {
        return -2 - t;
      }
    }
    return -1;
  }

  /**
   * Embeds one sequence of T = {@code ids.length} tokens into {@code batch} as a new sequence and
   * returns its index b. Ids, type ids (null: all 0) and T must be in range (see
   * {@link #firstInvalid}; T ≤ P).
   */
  public int append(int[] ids, int[] typeIds, TokenBatch batch) {
    int e = weights.width();
    float[] word = weights.word();             // (V, E)
    float[] position = weights.position();     // (P, E)
    float[] type = weights.tokenType();        // (S, E)
    int first = -1;
    for (int t = 0; t < ids.length; t++) {
      int offset = batch.appendToken(t);
      if (first < 0) {
        first = offset;
      }
      float[] x = batch.tokens();              // (B·T, E); may have grown
      int w = ids[t] * e;
      int p = t * e;
      int s = (typeIds == null ? 0 : typeIds[t]) * e;
      for (int i = 0; i < e; i++) {
        x[offset + i] = word[w + i] + position[p + i] + type[s + i];
      }
    }
    if (first >= 0) {
      LayerNorm.apply(batch.tokens(), first, batch.tokens(), first, ids.length, weights.gamma(),
          weights.beta(), eps);
    }
    return batch.endSequence();
  }
}
