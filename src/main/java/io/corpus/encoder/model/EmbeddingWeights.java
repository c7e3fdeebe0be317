package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Bfloat16Matrix;
import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.kernel.Precision;
import java.io.Serializable;

/**
 * The embedding layer of BERT, XLM-RoBERTa and ModernBERT, the step from token ids to the first
 * layer's input. ModernBERT has neither position nor token-type tables (its positions are rotary,
 * inside attention) and no norm shift.
 *
 * <p>Dimensions: V vocabulary, P positions, S token types, E width.
 *
 * @param word (V, E) one row per token id: float32, or bfloat16 where every value is one
 *     ({@link #in})
 * @param position (P, E) one row per position 0..P-1, or null
 * @param tokenType (S, E) one row per token type (segment) id, or null (then usesTokenTypes is
 *     false)
 * @param gamma (E) LayerNorm scale, or null when the embeddings are not normalized (Qwen)
 * @param beta (E) LayerNorm shift (zeros when the norm has none), null with gamma
 * @param positionOffset the row of a sequence's first position (RoBERTa: padding index + 1)
 * @param usesTokenTypes false when the model embeds every token with type 0 whatever the
 *     tokenizer says (RoBERTa)
 * @param width E
 * @param scale what the word rows are multiplied by (Gemma's √E); 1 for the others
 */
public record EmbeddingWeights(Matrix word, float[] position, float[] tokenType, float[] gamma,
    float[] beta, int positionOffset, boolean usesTokenTypes, int width, float scale)
    implements Serializable {

  /** Word rows (V·E values) multiplied by {@code scale}. */
  public EmbeddingWeights(float[] word, float[] position, float[] tokenType, float[] gamma,
      float[] beta, int positionOffset, boolean usesTokenTypes, int width, float scale) {
    this(words(word, width), position, tokenType, gamma, beta, positionOffset, usesTokenTypes,
        width, scale);
  }

  /** Word rows as they are. */
  public EmbeddingWeights(float[] word, float[] position, float[] tokenType, float[] gamma,
      float[] beta, int positionOffset, boolean usesTokenTypes, int width) {
    this(word, position, tokenType, gamma, beta, positionOffset, usesTokenTypes, width, 1f);
  }

  /** These embeddings with the word rows multiplied by {@code factor}. */
  public EmbeddingWeights scaled(float factor) {
    return new EmbeddingWeights(word, position, tokenType, gamma, beta, positionOffset,
        usesTokenTypes, width, factor);
  }

  /** BERT's: positions from row 0, token types used. */
  public EmbeddingWeights(float[] word, float[] position, float[] tokenType, float[] gamma,
      float[] beta) {
    this(word, position, tokenType, gamma, beta, 0, true);
  }

  /** Word rows only, no norm, no positions: a decoder's token embeddings. */
  public static EmbeddingWeights wordsOnly(float[] word, int width) {
    return new EmbeddingWeights(word, null, null, null, null, 0, false, width);
  }

  /** As {@link #wordsOnly(float[], int)}, from a (V, E) table in any precision. */
  public static EmbeddingWeights wordsOnly(Matrix word) {
    return new EmbeddingWeights(word, null, null, null, null, 0, false, word.cols(), 1f);
  }

  /** With a norm whose width is E. */
  public EmbeddingWeights(float[] word, float[] position, float[] tokenType, float[] gamma,
      float[] beta, int positionOffset, boolean usesTokenTypes) {
    this(word, position, tokenType, gamma, beta, positionOffset, usesTokenTypes, gamma.length);
  }

  public EmbeddingWeights {
    int e = width;
    if ((gamma == null) != (beta == null)
        || (gamma != null && (gamma.length != e || beta.length != e))) {
      throw new IllegalArgumentException("An embedding norm has a scale and a shift of width "
          + e + ", or neither");
    }
    if (e == 0 || word.cols() != e || word.rows() == 0
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

  /** The word table of V·E values as a (V, E) matrix; an error if it is not one. */
  private static Matrix words(float[] word, int width) {
    if (width == 0 || word.length % width != 0 || word.length == 0) {
      throw new IllegalArgumentException("Embedding tables must be non-empty (rows, " + width
          + ") matrices");
    }
    return Matrix.of(word, word.length / width, width);
  }

  /**
   * These embeddings for a model whose products run in {@code precision}: in bfloat16 and int8,
   * a word table whose every value is a bfloat16 (a checkpoint saved in BF16, as the decoders'
   * are) is held in bfloat16, half the bytes, the same values; otherwise, and in float32, as
   * they are.
   */
  public EmbeddingWeights in(Precision precision) {
    if (precision == Precision.FLOAT32 || word.precision() != Precision.FLOAT32
        || !Bfloat16Matrix.holdsOnlyBfloat16(word.floats())) {
      return this;
    }
    return new EmbeddingWeights(word.in(Precision.BFLOAT16), position, tokenType, gamma, beta,
        positionOffset, usesTokenTypes, width, scale);
  }

  /** V: token ids are 0..V-1. */
  public int vocabularySize() {
    return word.rows();
  }

  /** S: token type ids are 0..S-1 (1 without a table: every token has type 0). */
  public int tokenTypes() {
    return tokenType == null ? 1 : tokenType.length / width();
  }

  /** Number of float parameters. */
  public long parameterCount() {
    return (long) word.rows() * word.cols() + (position == null ? 0 : position.length)
        + (tokenType == null ? 0 : tokenType.length) + (gamma == null ? 0 : 2L * width);
  }
}
