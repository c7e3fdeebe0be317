package io.corpus.encoder.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * {@code RepeatedTexts IN OUT N}: a table of texts (jobs/samples/make-text-corpus, which draws
 * only so many from one machine) N times over, each copy's ids suffixed {@code #k}, as one file
 * (jobs/benchmarks/bench-static's larger corpora).
 */
public final class RepeatedTexts {
  private RepeatedTexts() {}

  public static void main(String[] args) {
    SparkSession spark = OneCoreSession.start("repeated-texts");
    Dataset<Row> texts = spark.read().parquet(args[0]);
    Dataset<Row> all = null;
    for (int k = 0; k < Integer.parseInt(args[2]); k++) {
      Dataset<Row> copy = texts.withColumn("id", concat(col("id").cast("string"), lit("#" + k)));
      all = all == null ? copy : all.unionByName(copy);
    }
    all.coalesce(1).write().mode("overwrite").parquet(args[1]);
    System.out.printf("%,d rows written to %s%n", spark.read().parquet(args[1]).count(), args[1]);
    spark.stop();
  }
}
