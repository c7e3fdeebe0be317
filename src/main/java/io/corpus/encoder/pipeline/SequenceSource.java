package io.corpus.encoder.pipeline;

import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.PositionalEncoding;
import io.corpus.encoder.model.TokenBatch;
import io.corpus.encoder.text.LateChunking;
import io.corpus.encoder.weights.StaticEmbeddings;
import java.io.Serializable;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;

/**
 * How an input row becomes one sequence of the encoder's input rows: token vectors as they are
 * ({@link EmbeddingsSource}), token ids through the embedding layer ({@link IdsSource}), or text
 * through the tokenizer and then the embedding layer ({@link TextSource}). Each rule of
 * {@link RejectRule} is checked in a source and only there, so the encoder and the rejects pass
 * refuse the same rows for the same reasons.
 *
 * <p>A source is made on the driver and serialized into the tasks; {@link #open} makes the reader
 * one task uses (with a tokenizer, native memory: close it when the task ends).
 */
abstract class SequenceSource implements Serializable {
  protected final InputColumns columns;

  SequenceSource(InputColumns columns) {
    this.columns = columns;
  }

  InputColumns columns() {
    return columns;
  }

  /**
   * The source for {@code columns}' kind of input and the model. Token vectors: the longest
   * sequence is the tighter of {@code maxLength} (0: any) and a learned position table. Token
   * ids and text: {@code maxTokens} (0: the folder's max_seq_length, else its positions), longer
   * ones cut or, with {@code rejectTooLong}, refused; text with {@code chunkOverlap} 0 or more
   * is cut into overlapping windows instead (-1: not); {@code lateChunking}: text is encoded
   * whole and pooled chunk by chunk instead, as asked; {@code prompt} goes before every text;
   * {@code spans}: text keeps where each token is, for entities; {@code instruction}: a
   * reranker's, in the template each pair is written into; {@code query}: texts are queries
   * (else documents), which a PyLate ColBERT folder reads each its own way; {@code held}: what
   * a text may already begin with, where a prompt or template goes before it (else null).
   */
  static SequenceSource of(InputColumns columns, LoadedModel m, int maxLength, int maxTokens,
      boolean rejectTooLong, int chunkOverlap, LateChunking.Asked lateChunking, String prompt,
      boolean spans, String instruction, boolean query, HeldPrompts held) {
    double eps = m.settings().architecture().norms().eps();
    return switch (columns.kind()) {
      case EMBEDDINGS -> {
        int limit = maxLength;
        String source = "maxLength";
        int positions = m.weights().encoder().maxPositions();
        if (m.settings().positional() == PositionalEncoding.LEARNED
            && (limit == 0 || positions < limit)) {
          limit = positions;
          source = "the learned position table";
        }
        yield new EmbeddingsSource(columns, m.weights().width(), limit, source);
      }
      case IDS -> new IdsSource(columns, m.folder().tokenLimit(maxTokens, "maxTokens"),
          rejectTooLong, eps);
      case TEXT -> {
        int limit = m.folder().tokenLimit(maxTokens, "maxTokens", query);
        yield new TextSource(columns, m.tokenizerJson(),
            m.folder().tokenizer().map(String::valueOf).orElse("tokenizer.json"), limit,
            rejectTooLong, chunkOverlap, prompt, spans, m.folder().stripsTexts(),
            m.folder().lowercasesTexts(), eps, m.weights().embeddings().vocabularySize(),
            m.folder().reranker(), instruction, m.folder().lateInteraction()
                .map(late -> late.input(query, limit, m.folder())).orElse(null), held,
            m.folder().prompts().pooled(), m.folder().staticEmbeddings()
                .map(StaticEmbeddings::reading).orElse(null), m.folder().textSuffix(),
            lateChunking.planner(limit));
      }
    };
  }

  /** The reader for one task, over the model's embedding layer when the source needs it. */
  abstract Reader open(EncoderModel model);

  /** Reads one task's rows into batches. */
  interface Reader extends AutoCloseable {
    /**
     * Appends the row's real tokens to {@code batch} as one sequence and says what the output
     * needs, or leaves the batch as it was and says why the row cannot be encoded.
     */
    SequenceRead read(InternalRow row, TokenBatch batch);

    @Override
    default void close() {}
  }

  /**
   * The checks every source makes first: a null id, then a string anywhere in the row, other
   * than the text the source checks itself, that is not UTF-8 (the row is copied to the output,
   * whose readers would refuse it).
   */
  final RejectRule.Rejection checkRow(InternalRow row) {
    if (row.isNullAt(columns.idOrdinal())) {
      return RejectRule.NULL_ID.because("id is null");
    }
    for (InputColumns.StringColumn c : columns.otherStringColumns()) {
      String where = InvalidUtf8.find(row, c.ordinal(), c.type());
      if (where != null) {
        return RejectRule.INVALID_UTF8.because("column " + c.name() + " is not valid UTF-8: "
            + where);
      }
    }
    return null;
  }

  /** The row's mask, or null without a mask column; the caller checked it with checkMask. */
  final ArrayData mask(InternalRow row) {
    return columns.hasMask() ? row.getArray(columns.maskOrdinal()) : null;
  }

  /** Refuses a null mask or one whose length is not the sequence's. */
  final RejectRule.Rejection checkMask(InternalRow row, int length, String what) {
    if (!columns.hasMask()) {
      return null;
    }
    if (row.isNullAt(columns.maskOrdinal())) {
      return RejectRule.BAD_MASK.because("mask is null");
    }
    int entries = row.getArray(columns.maskOrdinal()).numElements();
    if (entries != length) {
      return RejectRule.BAD_MASK.because("mask has " + entries + " entries, " + what + " have "
          + length + " tokens");
    }
    return null;
  }

  /** True for a real token, false for padding, null for a mask value that is neither. */
  final Boolean isReal(ArrayData mask, int t) {
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

  /** The rejection of a mask entry that is neither real nor padding. */
  static RejectRule.Rejection badMaskEntry(ArrayData mask, int t) {
    return RejectRule.BAD_MASK.because("mask entry " + t + " is "
        + (mask.isNullAt(t) ? "null" : String.valueOf(mask.getInt(t))) + ", expected 1 or 0");
  }
}
