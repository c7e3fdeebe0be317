package io.corpus.encoder.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * {@code ParquetFloor IN OUT WIDTH}: what reading a table of texts and writing a table of vectors
 * costs Spark alone, on every core, with no tokenizer and no model: each row of IN
 * (jobs/samples/make-text-corpus) is written to OUT with its columns, its words as
 * {@code tokens}, their hashes as {@code input_ids}, and WIDTH floats from hashes as
 * {@code pooled} (not a constant, which Parquet would compress away): the static embeddings
 * job's output shape (jobs/benchmarks/bench-static), without its work. Prints the seconds.
 */
public final class ParquetFloor {
  private ParquetFloor() {}

  public static void main(String[] args) {
    long start = System.nanoTime();
    SparkSession spark = SparkSession.builder().master("local[*]").appName("parquet-floor")
        .config("spark.ui.enabled", "false").getOrCreate();
    long up = System.nanoTime();
    int width = Integer.parseInt(args[2]);
    Dataset<Row> rows = spark.read().parquet(args[0])
        .withColumn("tokens", expr("split(lower(text), ' ')"))
        .withColumn("input_ids", expr("transform(tokens, t -> hash(t) % 30522)"))
        .withColumn("pooled", expr("transform(sequence(1, " + width + "), i -> "
            + "cast(hash(id, i) as float) / 2147483647)"))
        .select(col("*"));
    rows.write().mode("overwrite").parquet(args[1]);
    long done = System.nanoTime();
    System.out.printf("parquet floor: Spark up in %.1f s, read, built and written in %.1f s, "
        + "%.1f s in all%n", (up - start) / 1e9, (done - up) / 1e9, (done - start) / 1e9);
    spark.stop();
  }
}
