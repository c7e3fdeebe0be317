package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.posexplode;
import static org.apache.spark.sql.functions.udf;

import io.corpus.encoder.io.OutputFolder;
import io.corpus.encoder.model.Quantization;
import java.io.IOException;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.DataTypes;

/**
 * int8 and uint8 calibrated on the corpus itself: the encode pass writes every row's float
 * vector to a table of its own in the staging folder; this takes each dimension's min and max
 * over all of them (an exact aggregation, one pass over one column), then writes the final
 * table with the vector quantized by those ranges and drops the float one. A run killed while
 * this runs keeps the float table's pieces, and its resumed run does this again.
 */
final class QuantizeStep {
  /** The staged table of float vectors a calibrating encode pass writes. */
  static final String FLOAT_TABLE = "embeddings-float";

  private QuantizeStep() {}

  /**
   * Calibrates on {@code column} of the staged {@link #FLOAT_TABLE}, writes the staged
   * {@code table} with that column quantized, and returns the ranges (null when there is no
   * row, whose ranges nothing gives).
   */
  static Quantization.Ranges run(SparkSession spark, OutputFolder out, String table,
      String column, Quantization quantization) {
    Dataset<Row> floats = spark.read().parquet(out.staged(FLOAT_TABLE));
    Quantization.Ranges ranges = ranges(floats, column);
    UserDefinedFunction quantize = udf((UDF1<scala.collection.Seq<Float>, List<Object>>) v -> {
      float[] values = new float[v.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = v.apply(i);
      }
      Object written = quantization.written(values, ranges);
      List<Object> quantized = new ArrayList<>(Array.getLength(written));
      for (int i = 0; i < Array.getLength(written); i++) {
        quantized.add(Array.get(written, i));     // a Short or a Byte, as the column's type
      }
      return quantized;
    }, DataTypes.createArrayType(quantization.unsigned() ? DataTypes.ShortType
        : DataTypes.ByteType, false)).asNonNullable();
    // over what a run killed in this step left of it (the staging folder is this job's)
    floats.withColumn(column, quantize.apply(col(column))).write().mode(SaveMode.Overwrite)
        .parquet(out.staged(table));
    Configuration hadoop = spark.sparkContext().hadoopConfiguration();
    Path staged = new Path(out.staged(FLOAT_TABLE));
    try {
      FileSystem fs = staged.getFileSystem(hadoop);
      if (!fs.delete(staged, true)) {
        throw new IOException("not deleted");
      }
    } catch (IOException e) {
      throw new IllegalStateException("Cannot drop the staged float vectors " + staged + ": "
          + e.getMessage(), e);
    }
    return ranges;
  }

  /** Each dimension's min and max of the vectors in {@code column}; null without a row. */
  static Quantization.Ranges ranges(Dataset<Row> table, String column) {
    List<Row> rows = table.select(posexplode(col(column))).groupBy("pos")
        .agg(min("col"), max("col")).orderBy("pos").collectAsList();
    if (rows.isEmpty()) {
      return null;
    }
    float[] low = new float[rows.size()];
    float[] high = new float[rows.size()];
    for (Row r : rows) {
      int d = r.getInt(0);
      low[d] = r.getFloat(1);
      high[d] = r.getFloat(2);
    }
    return new Quantization.Ranges(low, high);
  }
}
