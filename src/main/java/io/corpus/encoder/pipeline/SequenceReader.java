package io.corpus.encoder.pipeline;

import io.corpus.encoder.model.TokenBatch;
import java.io.Serializable;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;

/**
 * Reads one input row's sequence into a {@link TokenBatch}, or says why it cannot: each rule of
 * {@link RejectRule} is checked here and only here. Padding positions are not copied; the real
 * tokens keep their original positions.
 */
public final class SequenceReader implements Serializable {
  private final InputColumns columns;
  private final int width;        // E
  private final int maxLength;    // longest T allowed, 0 = no limit
  private final String maxLengthSource;

  /**
   * @param maxLength the longest sequence allowed (0 = any)
   * @param maxLengthSource what sets that limit, for messages ("input.max-length", ...)
   */
  public SequenceReader(InputColumns columns, int width, int maxLength, String maxLengthSource) {
    this.columns = columns;
    this.width = width;
    this.maxLength = maxLength;
    this.maxLengthSource = maxLengthSource;
  }

  /** Length T of the row's sequence (padding included); the row must have passed {@link #read}. */
  public int length(InternalRow row) {
    return row.getArray(columns.embeddingsOrdinal()).numElements();
  }

  /**
   * Appends the row's real tokens to {@code batch} as one sequence and returns null, or leaves the
   * batch as it was and returns why the row cannot be encoded.
   */
  public RejectRule.Rejection read(InternalRow row, TokenBatch batch) {
    RejectRule.Rejection rejection = check(row, batch);
    if (rejection != null) {
      batch.discardOpenSequence();
    } else {
      batch.endSequence();
    }
    return rejection;
  }

  /** Checks the row without keeping its tokens: the rejects pass, which runs no model. */
  public RejectRule.Rejection validate(InternalRow row, TokenBatch scratch) {
    RejectRule.Rejection rejection = check(row, scratch);
    scratch.clear();
    return rejection;
  }

  private RejectRule.Rejection check(InternalRow row, TokenBatch batch) {
    if (row.isNullAt(columns.idOrdinal())) {
      return RejectRule.NULL_ID.because("id is null");
    }
    if (row.isNullAt(columns.embeddingsOrdinal())) {
      return RejectRule.NULL_EMBEDDINGS.because("embeddings are null");
    }
    ArrayData tokens = row.getArray(columns.embeddingsOrdinal());
    int length = tokens.numElements();
    if (length == 0) {
      return RejectRule.EMPTY_EMBEDDINGS.because("embeddings hold no token");
    }
    if (maxLength > 0 && length > maxLength) {
      return RejectRule.TOO_LONG.because("sequence has " + length + " tokens, more than the "
          + maxLength + " allowed by " + maxLengthSource);
    }
    ArrayData mask = null;
    if (columns.hasMask()) {
      if (row.isNullAt(columns.maskOrdinal())) {
        return RejectRule.BAD_MASK.because("mask is null");
      }
      mask = row.getArray(columns.maskOrdinal());
      if (mask.numElements() != length) {
        return RejectRule.BAD_MASK.because("mask has " + mask.numElements() + " entries, "
            + "embeddings have " + length + " tokens");
      }
    }
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
        return RejectRule.BAD_MASK.because("mask entry " + t + " is " + maskEntry(mask, t)
            + ", expected 1 or 0");
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

  /** True for a real token, false for padding, null for a mask value that is neither. */
  private Boolean isReal(ArrayData mask, int t) {
    if (mask == null) {
      return Boolean.TRUE;
    }
    if (mask.isNullAt(t)) {
      return null;
    }
    if (columns.maskIsBoolean()) {
      return mask.getBoolean(t);
    }
    int v = mask.getInt(t);
    return v == 1 ? Boolean.TRUE : v == 0 ? Boolean.FALSE : null;
  }

  private String maskEntry(ArrayData mask, int t) {
    return mask.isNullAt(t) ? "null" : String.valueOf(mask.getInt(t));
  }
}
