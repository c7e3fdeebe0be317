package io.corpus.encoder.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * {@code SameIds EMBEDDINGS IDS_JSON}: whether a job's token ids (its {@code embeddings/}
 * table: id, input_ids) equal those jobs/samples/tokenize_ids.js printed from Hugging Face's Rust
 * tokenizer for the same rows; prints how many do and the first that does not. Exit 1 on any
 * difference or missing row.
 */
public final class SameIds {
  private SameIds() {}

  public static void main(String[] args) throws Exception {
    SparkSession spark = OneCoreSession.start("same-ids");
    Map<String, List<Integer>> job = new HashMap<>();
    for (Row row : spark.read().parquet(args[0]).selectExpr("CAST(id AS STRING)", "input_ids")
        .collectAsList()) {
      job.put(row.getString(0), row.getList(1));
    }
    spark.stop();
    int same = 0;
    String first = null;
    JsonNode reference = new ObjectMapper().readTree(new File(args[1]));
    for (JsonNode r : reference) {
      List<Integer> want = new ArrayList<>();
      r.get("input_ids").forEach(i -> want.add(i.asInt()));
      List<Integer> got = job.get(r.get("id").asText());
      if (want.equals(got)) {
        same++;
      } else if (first == null) {
        first = r.get("id").asText() + ": job " + got + ", tokenizers " + want;
      }
    }
    System.out.printf("token ids: %,d of %,d texts equal Hugging Face's tokenizer's (job rows: "
        + "%,d)%n", same, reference.size(), job.size());
    if (first != null) {
      System.out.println("first difference: " + first);
    }
    System.exit(same == reference.size() && job.size() == same ? 0 : 1);
  }
}
