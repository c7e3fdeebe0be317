package io.corpus.encoder.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * {@code TextsJson PARQUET COLUMN OUT}: a Parquet table's texts as the JSON rows
 * ({@code [{"id", "a"}]}) that jobs/samples/tokenize_ids.js reads, so a PyTorch baseline gets
 * the Rust tokenizer's ids for the texts a job encodes (jobs/benchmarks/bench-qwen3).
 */
public final class TextsJson {
  private TextsJson() {}

  public static void main(String[] args) throws Exception {
    SparkSession spark = SparkSession.builder().master("local[1]").appName("texts-json")
        .config("spark.ui.enabled", "false").getOrCreate();
    List<Map<String, String>> rows = new ArrayList<>();
    int n = 0;
    for (Row row : spark.read().parquet(args[0]).select(args[1]).collectAsList()) {
      rows.add(Map.of("id", String.valueOf(n++), "a", row.getString(0)));
    }
    new ObjectMapper().writeValue(new File(args[2]), rows);
    spark.stop();
  }
}
