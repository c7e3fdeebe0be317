package io.corpus.encoder.io;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StringType;

/**
 * A row's estimated share of the encoding's work, from the size of its sequence column as read
 * (before any tokenizing): how the tasks that read one split share out its rows ({@link
 * ParquetInput#inPieces}). A sequence of t tokens weighs t · (1 + w / {@code attentionTokens}),
 * w = min(t, {@code window}): its dense products grow with t, its attention with t times the
 * w tokens each one attends to. t is an array's length (token ids, embedded vectors), or a
 * text's {@link #pieces} and two; cut to the window unless {@code chunked}.
 *
 * @param column the sequence column; "" weighs every row the same
 * @param window the most tokens the model runs at once, 0 = no limit
 * @param chunked whether a longer sequence is cut into windows (else it is truncated)
 * @param attentionTokens the sequence length whose attention costs as much as its dense
 *     products
 */
public record RowWeight(String column, int window, boolean chunked, double attentionTokens)
    implements Serializable {
  /** Every row the same weight. */
  public static final RowWeight EVEN = new RowWeight("", 0, false, 1);

  /** For the plan of a resumable run: a piece's rows depend on these. */
  public Map<String, Object> described() {
    Map<String, Object> shown = new LinkedHashMap<>();
    shown.put("column", column);
    shown.put("window", window);
    shown.put("chunked", chunked);
    shown.put("attention_tokens", attentionTokens);
    return shown;
  }

  /** The weight of a row whose sequence is field {@code field}, of this type. */
  double of(InternalRow row, int field, DataType type) {
    if (field < 0 || row.isNullAt(field)) {
      return 1;
    }
    double tokens;
    if (type instanceof StringType) {
      tokens = pieces(row.getUTF8String(field).toString()) + 2;
    } else if (type instanceof ArrayType) {
      tokens = row.getArray(field).numElements();
    } else {
      return 1;
    }
    tokens = Math.max(1, window > 0 && !chunked ? Math.min(tokens, window) : tokens);
    double attended = window > 0 ? Math.min(tokens, window) : tokens;
    return tokens * (1 + attended / attentionTokens);
  }

  /**
   * A text's runs of letters and digits, other marks and ideographs, one each: the pieces BERT's
   * and most other pre-tokenizers cut a text into before the vocabulary cuts some words further.
   * On the real-text benchmark's 10,000 texts it estimates their token counts twice as closely
   * as their UTF-8 bytes do (speed log).
   */
  static int pieces(String text) {
    int pieces = 0;
    boolean inWord = false;
    for (int i = 0; i < text.length(); ) {
      int c = text.codePointAt(i);
      i += Character.charCount(c);
      if (Character.isWhitespace(c)) {
        inWord = false;
      } else if (Character.isLetterOrDigit(c) && !Character.isIdeographic(c)) {
        pieces += inWord ? 0 : 1;
        inWord = true;
      } else {
        pieces++;
        inWord = false;
      }
    }
    return pieces;
  }
}
