package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * The embedding layer of BERT, XLM-RoBERTa and ModernBERT, the step from token ids to the first
 * layer's input. ModernBERT has neither position nor token-type tables (its positions are rotary,
 * inside attention) and no norm shift.
 *
 * <p>Dimensions: V vocabulary, P positions, S token types, E width.
 *
 * @param word (V, E) one row per token id
 * @param position (P, E) one row per position 0..P-1, or null
 * @param tokenType (S, E) one row per token type (segment) id, or null (then usesTokenTypes is
 *     false)
 * @param gamma (E) LayerNorm scale
 * @param beta (E) LayerNorm shift (zeros when the norm has none)
 * @param positionOffset the row of a sequence's first position (RoBERTa: padding index + 1)
 * @param usesTokenTypes false when the model embeds every token with type 0 whatever the
 *     tokenizer says (RoBERTa)
 */
public record EmbeddingWeights(float[] word, float[] position, float[] tokenType, float[] gamma,
    float[] beta, int positionOffset, boolean usesTokenTypes) implements Serializable {

  /** BERT's: positions from row 0, token types used. */
  public EmbeddingWeights(float[] word, float[] position, float[] tokenType, float[] gamma,
      float[] beta) {
    this(word, position, tokenType, gamma, beta, 0, true);
  }

  public EmbeddingWeights {
    int e = gamma.length;
    if (e == 0 || beta.length != e || word.length % e != 0 || word.length == 0
        || !table(position, e) || !table(tokenType, e)) {
      throw new IllegalArgumentException("Embedding tables must be non-empty (rows, " + e
          + ") matrices");
    }
    if (position == null ? positionOffset != 0
        : positionOffset < 0 || positionOffset >= position.length / e) {
      throw new IllegalArgumentException("The first position row " + positionOffset
          + " is outside the position table");
    }
    if (tokenType == null && usesTokenTypes) {
      throw new IllegalArgumentException("Token types are used but there is no table of them");
    }
  }

  private static boolean table(float[] rows, int e) {
    return rows == null || (rows.length > 0 && rows.length % e == 0);
  }

  /** E. */
  public int width() {
    return gamma.length;
  }

  /** V: token ids are 0..V-1. */
  public int vocabularySize() {
    return word.length / width();
  }

  /** S: token type ids are 0..S-1 (1 without a table: every token has type 0). */
  public int tokenTypes() {
    return tokenType == null ? 1 : tokenType.length / width();
  }

  /** Number of float parameters. */
  public long parameterCount() {
    return word.length + (position == null ? 0 : position.length)
        + (tokenType == null ? 0 : tokenType.length) + 2L * width();
  }
}
