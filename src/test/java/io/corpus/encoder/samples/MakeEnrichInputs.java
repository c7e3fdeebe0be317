package io.corpus.encoder.samples;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.floor;
import static org.apache.spark.sql.functions.lead;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.slice;
import static org.apache.spark.sql.functions.split;

import io.corpus.encoder.cli.SparkSessions;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;

/**
 * {@code jobs/benchmarks/bench-enrich}'s inputs, made from a real-text corpus (jobs/samples/make-text-corpus's
 * {@code texts.parquet}): {@code pairs.parquet}, one (query, passage) pair per text (the query the
 * text's first eight words, the passage the next text), and {@code docs.parquet}, the texts
 * joined in order, {@code --texts-per-doc} a document. Each is one file with one row group.
 * Usage: MakeEnrichInputs DIR [--texts-per-doc N].
 */
public final class MakeEnrichInputs {
  private MakeEnrichInputs() {}

  public static void main(String[] args) {
    String dir = args[0];
    int perDoc = args.length > 2 && args[1].equals("--texts-per-doc")
        ? Integer.parseInt(args[2]) : 40;
    SparkSession spark = SparkSessions.forJob("make-enrich-inputs");
    try {
      Dataset<Row> texts = spark.read().parquet(dir + "/texts.parquet");
      WindowSpec order = Window.orderBy("id");
      texts.select(col("id"),
              concat_ws(" ", slice(split(col("text"), " "), 1, 8)).as("query"),
              lead(col("text"), 1, "").over(order).as("passage"))
          .coalesce(1).write().mode("overwrite").parquet(dir + "/pairs.parquet");
      texts.withColumn("n", row_number().over(order))
          .groupBy(floor(col("n").minus(1).divide(perDoc)).as("doc"))
          .agg(concat_ws(" ", collect_list(col("text"))).as("text"))
          .select(col("doc").cast("string").as("id"), col("text"))
          .coalesce(1).write().mode("overwrite").parquet(dir + "/docs.parquet");
      System.out.println("wrote " + dir + "/pairs.parquet and " + dir + "/docs.parquet ("
          + perDoc + " texts a document)");
    } finally {
      spark.stop();
    }
  }
}
