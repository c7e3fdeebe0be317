package io.corpus.encoder.pipeline;

import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.TokenBatch;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;

/**
 * Token vectors as the encoder's input: {@code array<array<float|double>>}, T tokens of E values,
 * with an optional mask. Padding positions are not copied; the real tokens keep their original
 * positions.
 */
final class EmbeddingsSource extends SequenceSource {
  private final int width;        // E
  private final int maxLength;    // longest T allowed, 0 = no limit
  private final String maxLengthSource;

  /**
   * @param maxLength the longest sequence allowed (0 = any)
   * @param maxLengthSource what sets that limit, for messages ("maxLength", ...)
   */
  EmbeddingsSource(InputColumns columns, int width, int maxLength, String maxLengthSource) {
    super(columns);
    this.width = width;
    this.maxLength = maxLength;
    this.maxLengthSource = maxLengthSource;
  }

  @Override
  Reader open(EncoderModel model) {
    return this::read;
  }

  private SequenceRead read(InternalRow row, TokenBatch batch) {
    RejectRule.Rejection rejection = check(row, batch);
    if (rejection != null) {
      batch.discardOpenSequence();
      return rejection;
    }
    batch.endSequence();
    return SequenceRead.Accepted.of(row.getArray(columns.sequenceOrdinal()).numElements());
  }

  private RejectRule.Rejection check(InternalRow row, TokenBatch batch) {
    RejectRule.Rejection badRow = checkRow(row);
    if (badRow != null) {
      return badRow;
    }
    if (row.isNullAt(columns.sequenceOrdinal())) {
      return RejectRule.NULL_EMBEDDINGS.because("embeddings are null");
    }
    ArrayData tokens = row.getArray(columns.sequenceOrdinal());
    int length = tokens.numElements();
    if (length == 0) {
      return RejectRule.EMPTY_EMBEDDINGS.because("embeddings hold no token");
    }
    if (maxLength > 0 && length > maxLength) {
      return RejectRule.TOO_LONG.because("sequence has " + length + " tokens, more than the "
          + maxLength + " allowed by " + maxLengthSource);
    }
    RejectRule.Rejection badMask = checkMask(row, length, "embeddings");
    if (badMask != null) {
      return badMask;
    }
    ArrayData mask = mask(row);
    int realTokens = 0;
    for (int t = 0; t < length; t++) {
      if (tokens.isNullAt(t)) {
        return RejectRule.NULL_TOKEN.because("token " + t + " is null");
      }
      ArrayData token = tokens.getArray(t);
      if (token.numElements() != width) {
        return RejectRule.WRONG_WIDTH.because("token " + t + " has " + token.numElements()
            + " values, expected " + width);
      }
      Boolean real = isReal(mask, t);
      if (real == null) {
        return badMaskEntry(mask, t);
      }
      if (!real) {
        continue;
      }
      RejectRule.Rejection bad = copyToken(token, t, batch);
      if (bad != null) {
        return bad;
      }
      realTokens++;
    }
    if (realTokens == 0) {
      return RejectRule.NO_REAL_TOKEN.because("mask marks all " + length + " tokens as padding");
    }
    return null;
  }

  private RejectRule.Rejection copyToken(ArrayData token, int t, TokenBatch batch) {
    int offset = batch.appendToken(t);
    float[] x = batch.tokens();
    boolean isDouble = columns.embeddingsAreDouble();
    for (int i = 0; i < width; i++) {
      if (token.isNullAt(i)) {
        return RejectRule.NULL_TOKEN.because("token " + t + " has a null at index " + i);
      }
      float v = isDouble ? (float) token.getDouble(i) : token.getFloat(i);
      if (!Float.isFinite(v)) {
        return RejectRule.NON_FINITE.because("token " + t + " index " + i + " is "
            + (isDouble ? String.valueOf(token.getDouble(i)) : String.valueOf(v)));
      }
      x[offset + i] = v;
    }
    return null;
  }
}
