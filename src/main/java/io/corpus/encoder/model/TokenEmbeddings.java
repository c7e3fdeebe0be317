package io.corpus.encoder.model;

import io.corpus.encoder.kernel.LayerNorm;
import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.kernel.Vectors;

/**
 * The embedding layer over a batch: for each token t of a sequence,
 * {@code x[t] = LayerNorm(word[id_t] + position[offset + t] + tokenType[type_t])}, appended to
 * the {@link TokenBatch} as the encoder's input rows. The offset is 0 for BERT and the padding
 * index + 1 for RoBERTa; a model that does not use token types embeds type 0 for every token
 * (RoBERTa), or none (ModernBERT, which has no position table either).
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

  /** Index of the first id outside the vocabulary 0..V-1, or -1 when all are in range. */
  public int firstIdOutside(int[] ids) {
    return firstOutside(ids, weights.vocabularySize());
  }

  /** Index of the first type id outside 0..S-1, or -1 when all are in range or unused. */
  public int firstTypeIdOutside(int[] typeIds) {
    return weights.usesTokenTypes() ? firstOutside(typeIds, weights.tokenTypes()) : -1;
  }

  private static int firstOutside(int[] values, int limit) {
    for (int t = 0; t < values.length; t++) {
      if (values[t] < 0 || values[t] >= limit) {
        return t;
      }
    }
    return -1;
  }

  /**
   * Embeds one sequence of T = {@code ids.length} tokens at positions 0..T-1 into {@code batch}
   * as a new sequence and returns its index b. Ids and type ids (T) must be in range
   * ({@link #firstIdOutside}, {@link #firstTypeIdOutside}) and T ≤ P.
   */
  public int append(int[] ids, int[] typeIds, TokenBatch batch) {
    return append(ids, typeIds, positions(ids.length), batch);
  }

  /** As {@link #append(int[], int[], TokenBatch)}, every token of type 0: a single text. */
  public int append(int[] ids, TokenBatch batch) {
    return append(ids, new int[ids.length], batch);
  }

  /** Positions 0..T-1, a sequence's own. */
  public static int[] positions(int t) {
    int[] positions = new int[t];
    for (int i = 0; i < t; i++) {
      positions[i] = i;
    }
    return positions;
  }

  /**
   * As {@link #append(int[], int[], TokenBatch)}, with each token's position given: the real
   * tokens of a padded row keep the positions they had in it ({@link #positions}: 0..T-1);
   * every position in {@code positions} (T) must be below P less the offset.
   */
  public int append(int[] ids, int[] typeIds, int[] positions, TokenBatch batch) {
    int e = weights.width();
    Matrix word = weights.word();              // (V, E)
    float[] position = weights.position();     // (P, E)
    float[] type = weights.tokenType();        // (S, E)
    int offset0 = weights.positionOffset();
    boolean types = weights.usesTokenTypes();
    int first = -1;
    for (int t = 0; t < ids.length; t++) {
      int at = positions[t];                   // the position in the sequence
      int offset = batch.appendToken(at);
      if (first < 0) {
        first = offset;
      }
      float[] x = batch.tokens();              // (B·T, E); may have grown
      int p = (offset0 + at) * e;
      int s = (types ? typeIds[t] : 0) * e;
      word.row(ids[t], x, offset);
      if (weights.scale() != 1f) {
        for (int i = 0; i < e; i++) {
          x[offset + i] *= weights.scale();
        }
      }
      if (position.length > 0) {
        Vectors.add(position, p, x, offset, e);
      }
      if (type.length > 0) {
        Vectors.add(type, s, x, offset, e);
      }
    }
    if (first >= 0 && weights.norm() instanceof Norm.Affine norm) {
      LayerNorm.apply(batch.tokens(), first, batch.tokens(), first, ids.length, norm.scale(),
          norm.shift(), eps);
    }
    return batch.endSequence();
  }
}
