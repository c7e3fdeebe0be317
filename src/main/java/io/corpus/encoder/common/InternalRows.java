package io.corpus.encoder.common;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * Turns an RDD of internal rows back into a DataFrame without converting every value to a boxed
 * {@link Row}. Spark exposes this only on its classic (non-Connect) session, which is what a
 * batch job runs on.
 */
public final class InternalRows {
  private InternalRows() {}

  public static Dataset<Row> toDataFrame(SparkSession spark, JavaRDD<InternalRow> rows,
      StructType schema) {
    if (!(spark instanceof org.apache.spark.sql.classic.SparkSession classic)) {
      throw new IllegalStateException("The encoder needs a classic SparkSession, not Spark Connect "
          + "(got " + spark.getClass().getName() + ")");
    }
    return classic.internalCreateDataFrame(rows.rdd(), schema, false);
  }
}
