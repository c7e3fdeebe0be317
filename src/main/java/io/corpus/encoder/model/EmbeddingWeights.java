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
 * @param position (P, E) one row per position 0..P-1; empty where positions are not learned
 *     rows (rotary, relative) ({@link #NO_TABLE})
 * @param tokenType (S, E) one row per token type (segment) id; empty for none (then
 *     usesTokenTypes is false)
 * @param norm (E) the layer norm of the sum, or none when the embeddings are not normalized
 *     (Qwen)
 * @param positionOffset the row of a sequence's first position (RoBERTa: padding index + 1)
 * @param usesTokenTypes false when the model embeds every token with type 0 whatever the
 *     tokenizer says (RoBERTa)
 * @param width E
 * @param scale what the word rows are multiplied by (Gemma's √E); 1 for the others
 */
public record EmbeddingWeights(Matrix word, float[] position, float[] tokenType, Norm norm,
    int positionOffset, boolean usesTokenTypes, int width, float scale)
    implements Serializable {

  /** A table a model has not: no rows. */
  public static final float[] NO_TABLE = new float[0];

  /** These embeddings with the word rows multiplied by {@code factor}. */
  public EmbeddingWeights scaled(float factor) {
    return new EmbeddingWeights(word, position, tokenType, norm, positionOffset,
        usesTokenTypes, width, factor);
  }

  /** BERT's: positions from row 0, token types used. */
  public EmbeddingWeights(float[] word, float[] position, float[] tokenType, float[] gamma,
      float[] beta) {
    this(word, position, tokenType, gamma, beta, 0, true);
  }

  /** Word rows only, no norm, no positions: a decoder's token embeddings. */
  public static EmbeddingWeights wordsOnly(float[] word, int width) {
    return wordsOnly(words(word, width));
  }

  /** As {@link #wordsOnly(float[], int)}, from a (V, E) table in any precision. */
  public static EmbeddingWeights wordsOnly(Matrix word) {
    return new EmbeddingWeights(word, NO_TABLE, NO_TABLE, Norm.none(), 0, false, word.cols(),
        1f);
  }

  /** Word rows (V·E values) as they are, with a layer norm of scale {@code gamma} (E). */
  public EmbeddingWeights(float[] word, float[] position, float[] tokenType, float[] gamma,
      float[] beta, int positionOffset, boolean usesTokenTypes) {
    this(words(word, gamma.length), position, tokenType, new Norm.Affine(gamma, beta),
        positionOffset, usesTokenTypes, gamma.length, 1f);
  }

  public EmbeddingWeights {
    int e = width;
    if (norm instanceof Norm.Affine a && a.scale().length != e || norm instanceof Norm.Scale) {
      throw new IllegalArgumentException("An embedding norm has a scale and a shift of width "
          + e + ", or neither");
    }
    if (e == 0 || word.cols() != e || word.rows() == 0
        || !table(position, e) || !table(tokenType, e)) {
      throw new IllegalArgumentException("Embedding tables must be non-empty (rows, " + e
          + ") matrices");
    }
    if (position.length == 0 ? positionOffset != 0
        : positionOffset < 0 || positionOffset >= position.length / e) {
      throw new IllegalArgumentException("The first position row " + positionOffset
          + " is outside the position table");
    }
    if (tokenType.length == 0 && usesTokenTypes) {
      throw new IllegalArgumentException("Token types are used but there is no table of them");
    }
  }

  private static boolean table(float[] rows, int e) {
    return rows.length % e == 0;
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
    return new EmbeddingWeights(word.in(Precision.BFLOAT16), position, tokenType, norm,
        positionOffset, usesTokenTypes, width, scale);
  }

  /** V: token ids are 0..V-1. */
  public int vocabularySize() {
    return word.rows();
  }

  /** S: token type ids are 0..S-1 (1 without a table: every token has type 0). */
  public int tokenTypes() {
    return tokenType.length == 0 ? 1 : tokenType.length / width();
  }
}
