package io.corpus.encoder.pipeline;

import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.TokenBatch;
import io.corpus.encoder.model.TokenEmbeddings;
import java.util.Arrays;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;

/**
 * Token ids as the input ({@code array<int|bigint>}, special tokens included), with optional type
 * ids and mask, run through the model's embedding layer. Real tokens keep their positions. A row
 * longer than {@code maxTokens} (up to its last real token) is rejected, or truncated as a
 * tokenizer cuts a text: its first {@code maxTokens - 1} real tokens and its last one (the closing
 * {@code [SEP]}), at positions 0 to {@code maxTokens - 1}.
 */
final class IdsSource extends EmbeddedSource {
  IdsSource(InputColumns columns, int maxTokens, boolean rejectTooLong, double layerNormEps) {
    super(columns, maxTokens, rejectTooLong, layerNormEps);
  }

  @Override
  Reader open(EncoderModel model) {
    TokenEmbeddings embeddings = embeddingLayer(model);
    return (row, batch) -> read(row, batch, embeddings);
  }

  private SequenceRead read(InternalRow row, TokenBatch batch, TokenEmbeddings embeddings) {
    RejectRule.Rejection badRow = checkRow(row);
    if (badRow != null) {
      return badRow;
    }
    if (row.isNullAt(columns.sequenceOrdinal())) {
      return RejectRule.NULL_IDS.because("token ids are null");
    }
    ArrayData idArray = row.getArray(columns.sequenceOrdinal());
    int length = idArray.numElements();
    if (length == 0) {
      return RejectRule.EMPTY_IDS.because("token ids hold no token");
    }
    RejectRule.Rejection badMask = checkMask(row, length, "token ids");
    if (badMask != null) {
      return badMask;
    }
    ArrayData typeArray = null;
    if (columns.hasTypeIds()) {
      if (row.isNullAt(columns.typeIdsOrdinal())) {
        return RejectRule.BAD_TYPE_ID.because("type ids are null");
      }
      typeArray = row.getArray(columns.typeIdsOrdinal());
      if (typeArray.numElements() != length) {
        return RejectRule.BAD_TYPE_ID.because("type ids have " + typeArray.numElements()
            + " entries, token ids have " + length);
      }
    }
    ArrayData mask = mask(row);
    int vocabulary = embeddings.weights().vocabularySize();   // V
    int typeCount = embeddings.weights().tokenTypes();        // S
    int[] ids = new int[length];         // (real tokens)
    int[] types = new int[length];
    int[] positions = new int[length];
    int real = 0;
    for (int t = 0; t < length; t++) {
      Boolean isReal = isReal(mask, t);
      if (isReal == null) {
        return badMaskEntry(mask, t);
      }
      if (!isReal) {
        continue;
      }
      long id = element(idArray, t, columns.idsAreLong());
      if (id == Long.MIN_VALUE) {
        return RejectRule.BAD_TOKEN_ID.because("token " + t + " id is null");
      }
      if (id < 0 || id >= vocabulary) {
        return RejectRule.BAD_TOKEN_ID.because("token " + t + " has id " + id + ", outside the "
            + "vocabulary 0.." + (vocabulary - 1));
      }
      long type = typeArray == null ? 0 : element(typeArray, t, columns.typeIdsAreLong());
      if (type == Long.MIN_VALUE) {
        return RejectRule.BAD_TYPE_ID.because("token " + t + " type id is null");
      }
      if (type < 0 || type >= typeCount) {
        return RejectRule.BAD_TYPE_ID.because("token " + t + " has type id " + type
            + ", outside 0.." + (typeCount - 1));
      }
      ids[real] = (int) id;
      types[real] = (int) type;
      positions[real] = t;
      real++;
    }
    if (real == 0) {
      return RejectRule.NO_REAL_TOKEN.because("mask marks all " + length + " tokens as padding");
    }
    int span = positions[real - 1] + 1;
    boolean truncated = span > maxTokens;
    if (truncated && rejectTooLong) {
      return RejectRule.TOO_LONG.because("token ids reach position " + (span - 1) + ", more than "
          + "the " + maxTokens + " tokens allowed by max-tokens (on-too-long = reject)");
    }
    ids = Arrays.copyOf(ids, real);
    types = Arrays.copyOf(types, real);
    positions = Arrays.copyOf(positions, real);
    if (truncated) {
      ids = cut(ids, maxTokens);
      types = cut(types, maxTokens);
      positions = TokenEmbeddings.positions(ids.length);   // as the cut text would have
    }
    // Every position is below maxTokens, which is at most P (ModelFolder.tokenLimit).
    embeddings.append(ids, types, positions, batch);
    return new SequenceRead.Accepted(truncated ? ids.length : length, ids, null, null,
        truncated, null, null, SequenceRead.Prompt.NONE);
  }

  /** Entry t as a long; Long.MIN_VALUE for a null entry. */
  private static long element(ArrayData values, int t, boolean isLong) {
    if (values.isNullAt(t)) {
      return Long.MIN_VALUE;
    }
    return isLong ? values.getLong(t) : values.getInt(t);
  }

  /** The first {@code max - 1} values and the last, as truncation keeps the closing token. */
  static int[] cut(int[] values, int max) {
    if (values.length <= max) {
      return values;
    }
    int[] kept = Arrays.copyOf(values, max);
    kept[max - 1] = values[values.length - 1];
    return kept;
  }
}
