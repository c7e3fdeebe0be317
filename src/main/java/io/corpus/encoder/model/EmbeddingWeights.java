package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * The embedding layer of BERT and XLM-RoBERTa, the step from token ids to the first layer's
 * input.
 *
 * <p>Dimensions: V vocabulary, P positions, S token types, E width.
 *
 * @param word (V, E) one row per token id
 * @param position (P, E) one row per position 0..P-1
 * @param tokenType (S, E) one row per token type (segment) id
 * @param gamma (E) LayerNorm scale
 * @param beta (E) LayerNorm shift
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
    if (positionOffset < 0 || positionOffset >= position.length / Math.max(1, gamma.length)) {
      throw new IllegalArgumentException("The first position row " + positionOffset
          + " is outside the position table");
    }
    int e = gamma.length;
    if (e == 0 || beta.length != e || word.length % e != 0 || position.length % e != 0
        || tokenType.length % e != 0 || word.length == 0 || position.length == 0
        || tokenType.length == 0) {
      throw new IllegalArgumentException("Embedding tables must be non-empty (rows, " + e
          + ") matrices");
    }
  }

  /** E. */
  public int width() {
    return gamma.length;
  }

  /** V: token ids are 0..V-1. */
  public int vocabularySize() {
    return word.length / width();
  }

  /** P: positions are 0..P-1. */
  public int maxPositions() {
    return position.length / width();
  }

  /** The most tokens a sequence may have: P less the offset. */
  public int usablePositions() {
    return maxPositions() - positionOffset;
  }

  /** S: token type ids are 0..S-1. */
  public int tokenTypes() {
    return tokenType.length / width();
  }
}
