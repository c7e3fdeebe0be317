package io.corpus.encoder.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.text.EdgeWhitespace;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * {@code TextsJson PARQUET ID_COLUMN TEXT_COLUMN OUT}: a Parquet table's ids and texts as the
 * JSON rows ({@code [{"id", "a"}]}) that jobs/samples/tokenize_ids.js reads, so a PyTorch
 * baseline gets the Rust tokenizer's ids for the texts a job encodes, and {@link SameIds} can
 * hold the job's ids against them (jobs/benchmarks/bench-qwen3). Each text is stripped as
 * sentence-transformers strips it (Python's {@code str.strip()}) before the job tokenizes it.
 */
public final class TextsJson {
  private TextsJson() {}

  public static void main(String[] args) throws Exception {
    SparkSession spark = OneCoreSession.start("texts-json");
    List<Map<String, String>> rows = new ArrayList<>();
    for (Row row : spark.read().parquet(args[0]).selectExpr("CAST(" + args[1] + " AS STRING)",
        args[2]).collectAsList()) {
      rows.add(Map.of("id", row.getString(0),
          "a", EdgeWhitespace.strip(row.getString(1)).text()));
    }
    new ObjectMapper().writeValue(new File(args[3]), rows);
    spark.stop();
  }
}
