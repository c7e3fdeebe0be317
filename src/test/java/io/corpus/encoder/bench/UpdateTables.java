package io.corpus.encoder.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.monotonically_increasing_id;
import static org.apache.spark.sql.functions.when;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * {@code UpdateTables CORPUS OUT KEPT GONE EDITED OTHER}: from a table of texts (id, text,
 * source; jobs/samples/make-text-corpus) of at least KEPT + new rows, {@code OUT/v1.parquet}, its
 * first KEPT rows, and {@code OUT/v2.parquet}, the table a day later: GONE rows left out, EDITED
 * texts changed, OTHER rows changed only in {@code source}, and the rows after the first KEPT
 * added. One file and one row group each, as pandas or DuckDB write them
 * (jobs/benchmarks/bench-update).
 */
public final class UpdateTables {
  private UpdateTables() {}

  public static void main(String[] args) {
    SparkSession spark = OneCoreSession.start("update-tables");
    int kept = Integer.parseInt(args[2]);
    int gone = Integer.parseInt(args[3]);
    int edited = Integer.parseInt(args[4]);
    int other = Integer.parseInt(args[5]);
    Dataset<Row> all = spark.read().parquet(args[0]).coalesce(1)
        .withColumn("n", monotonically_increasing_id());
    Dataset<Row> first = all.where(col("n").lt(kept));
    first.drop("n").coalesce(1).write().mode("overwrite").parquet(args[1] + "/v1.parquet");
    Dataset<Row> next = all.where(col("n").geq(gone))
        .withColumn("text", when(col("n").lt(gone + edited),
            concat(col("text"), lit(" (Edited the next day.)"))).otherwise(col("text")))
        .withColumn("source", when(col("n").geq(gone + edited)
            .and(col("n").lt(gone + edited + other)), lit("moved")).otherwise(col("source")));
    next.drop("n").coalesce(1).write().mode("overwrite").parquet(args[1] + "/v2.parquet");
    System.out.printf("v1: %,d rows; v2: %,d rows (%,d gone, %,d edited, %,d changed in source, "
        + "%,d new)%n", first.count(), next.count(), gone, edited, other,
        all.count() - kept);
    spark.stop();
  }
}
