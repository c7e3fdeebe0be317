package io.corpus.encoder.pipeline;

import io.corpus.encoder.common.InternalRows;
import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.TokenBatch;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The rows an encoder refuses, each with all its original columns plus {@code reject_rule} and
 * {@code reject_reason}. Runs the same checks as the encoder (its {@link SequenceSource}: for text,
 * the tokenizer and the embedding layer) and no encoder layer, so finding the rejects costs a
 * read of the input, not a second forward pass.
 */
public final class RejectedRows {
  public static final String RULE_COLUMN = "reject_rule";
  public static final String REASON_COLUMN = "reject_reason";

  private RejectedRows() {}

  /** The schema of the rejects of an input with this schema: its columns, the rule, the reason. */
  public static StructType schema(StructType input) {
    return input.add(RULE_COLUMN, DataTypes.StringType, false)
        .add(REASON_COLUMN, DataTypes.StringType, false);
  }

  /** The input's rows that {@code source} refuses, lazily. */
  static Dataset<Row> of(Dataset<Row> input, SequenceSource source, WeightsHandle model) {
    StructType schema = schema(input.schema());
    int columns = input.schema().size();
    return InternalRows.toDataFrame(input.sparkSession(), read(input, source, model,
        (row, read) -> read instanceof RejectRule.Rejection rejection
            ? withReason(row.copy(), rejection, schema, columns) : null), schema);
  }

  /** The input's rows that {@code source} takes (that would be encoded), as they are, lazily. */
  static Dataset<Row> accepted(Dataset<Row> input, SequenceSource source, WeightsHandle model) {
    return InternalRows.toDataFrame(input.sparkSession(), read(input, source, model,
        (row, read) -> read instanceof RejectRule.Rejection ? null : row.copy()),
        input.schema());
  }

  /** What {@code kept} makes of each row and how the source read it; null leaves the row out. */
  private interface Kept extends java.io.Serializable {
    InternalRow of(InternalRow row, SequenceRead read);
  }

  /** Every row read by {@code source} (no encoder layer runs), and what {@code kept} keeps. */
  private static JavaRDD<InternalRow> read(Dataset<Row> input, SequenceSource source,
      WeightsHandle model, Kept kept) {
    JavaRDD<InternalRow> rows = input.queryExecution().toRdd().toJavaRDD();
    return rows.mapPartitions((Iterator<InternalRow> it) -> {
      EncoderModel m = model.get();
      TokenBatch scratch = new TokenBatch(m.width(), 256);
      List<InternalRow> out = new ArrayList<>();
      try (SequenceSource.Reader reader = source.open(m)) {
        while (it.hasNext()) {
          InternalRow row = it.next();
          SequenceRead read = reader.read(row, scratch);
          scratch.clear();
          InternalRow taken = kept.of(row, read);
          if (taken != null) {
            out.add(taken);
          }
        }
      }
      return out.iterator();
    });
  }

  /** The row's {@code columns} input values, then the rule and the reason. */
  private static InternalRow withReason(InternalRow row, RejectRule.Rejection rejection,
      StructType schema, int columns) {
    Object[] values = new Object[columns + 2];
    for (int i = 0; i < columns; i++) {
      // Parquet strings are UTF-8: a reader such as DuckDB refuses the file otherwise. The
      // reason gives the offending bytes; the copy has U+FFFD in their place.
      DataType type = schema.fields()[i].dataType();
      values[i] = InvalidUtf8.repaired(row.isNullAt(i) ? null : row.get(i, type), type);
    }
    values[columns] = UTF8String.fromString(rejection.rule().ruleName());
    values[columns + 1] = UTF8String.fromString(rejection.toString());
    return new GenericInternalRow(values);
  }
}
