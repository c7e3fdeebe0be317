package io.corpus.encoder.pipeline;

import io.corpus.encoder.model.TokenBatch;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The rows an encoder refuses, each with all its original columns plus {@code reject_rule} and
 * {@code reject_reason}. Runs the same checks as the encoder ({@link SequenceReader}) and no model,
 * so finding the rejects costs a read of the input, not a second forward pass.
 */
public final class RejectedRows {
  public static final String RULE_COLUMN = "reject_rule";
  public static final String REASON_COLUMN = "reject_reason";

  private RejectedRows() {}

  /** The input's rows that {@code reader} refuses, lazily. */
  public static Dataset<Row> of(Dataset<Row> input, SequenceReader reader, int width) {
    StructType schema = input.schema()
        .add(RULE_COLUMN, DataTypes.StringType, false)
        .add(REASON_COLUMN, DataTypes.StringType, false);
    int columns = input.schema().size();
    JavaRDD<InternalRow> rows = input.queryExecution().toRdd().toJavaRDD();
    JavaRDD<InternalRow> rejected = rows.mapPartitions((Iterator<InternalRow> it) -> {
      TokenBatch scratch = new TokenBatch(width, 256);
      List<InternalRow> out = new ArrayList<>();
      while (it.hasNext()) {
        InternalRow row = it.next();
        RejectRule.Rejection rejection = reader.validate(row, scratch);
        if (rejection != null) {
          InternalRow source = row.copy();
          Object[] values = new Object[columns + 2];
          for (int i = 0; i < columns; i++) {
            values[i] = source.get(i, schema.fields()[i].dataType());
          }
          values[columns] = UTF8String.fromString(rejection.rule().ruleName());
          values[columns + 1] = UTF8String.fromString(rejection.toString());
          out.add(new GenericInternalRow(values));
        }
      }
      return out.iterator();
    });
    return InternalRows.toDataFrame(input.sparkSession(), rejected, schema);
  }
}
