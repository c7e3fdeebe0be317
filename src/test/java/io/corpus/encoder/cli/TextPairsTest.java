package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.pipeline.EncoderTransformer;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * (query, passage) pairs through the job: the ids and token types of Hugging Face's Rust
 * tokenizer (npm's tokenizers 0.13.3, src/test/resources/pairs, made by jobs/samples/pair_ids.js) with
 * longest-first cuts at 32 tokens, cut pairs counted, a null side set aside; a pair's vector is
 * the model's vector of those ids and types given as ids.
 */
class TextPairsTest {
  @TempDir
  Path tmp;

  private void run(String... lines) throws Exception {
    JobRunner.Result result = JobRunner.run(tmp, lines);
    assertEquals(0, result.code(), result.error());
  }

  /** The reference pairs as rows (id, query, passage). */
  private static List<Row> pairRows(JsonNode expected) {
    List<Row> pairs = new ArrayList<>();
    for (JsonNode p : expected) {
      pairs.add(RowFactory.create(p.get("id").asText(), p.get("a").asText(),
          p.get("b").asText()));
    }
    return pairs;
  }

  private static final StructType PAIRS = new StructType().add("id", DataTypes.StringType)
      .add("query", DataTypes.StringType).add("passage", DataTypes.StringType);

  @Test
  void pairsGiveTheTokenizersIdsAndTypesAndTheVectorsOfThoseIds() throws Exception {
    SparkSession spark = SparkTestSession.get();
    JsonNode expected = new ObjectMapper().readTree(
        Path.of("src/test/resources/pairs/minilm-32.json").toFile());
    List<Row> pairs = pairRows(expected);
    pairs.add(RowFactory.create("null-passage", "a query", null));
    Path input = tmp.resolve("pairs.parquet");
    spark.createDataFrame(pairs, PAIRS).coalesce(1).write().parquet(input.toString());
    Path model = SharedModels.miniLm();
    Path out = tmp.resolve("out");
    run("input { path = \"" + input + "\", text-pair-columns = [query, passage],",
        "  max-tokens = 32 }", "model.path = \"" + model + "\"",
        "output { path = \"" + out + "\", token-embeddings = false }");

    Map<String, Row> byId = new HashMap<>();
    spark.read().parquet(out.resolve("embeddings").toString()).collectAsList()
        .forEach(r -> byId.put(r.getAs("id"), r));
    long cut = 0;
    for (JsonNode p : expected) {
      Row row = byId.get(p.get("id").asText());
      assertArrayEquals(JobRunner.ints(p.get("input_ids")),
          JobRunner.ints(row.getList(row.fieldIndex("input_ids"))), p.get("id").asText());
      assertArrayEquals(JobRunner.ints(p.get("token_type_ids")),
          JobRunner.ints(row.getList(row.fieldIndex("token_type_ids"))), p.get("id").asText());
      cut += p.get("full_length").asInt() > p.get("input_ids").size() ? 1 : 0;
    }
    RunSummary summary = RunSummary.read(out.resolve("run-summary.json"));
    assertEquals(4, cut, "the reference cuts four pairs");
    assertEquals(cut, summary.rowsTruncated());
    assertEquals(Map.of("null-text", 1L), summary.rejectedByRule());
    Row rejected = spark.read().parquet(out.resolve("rejects").toString()).first();
    assertEquals("null-text: second text is null", rejected.getAs("reject_reason"));

    // The same ids and token types given as ids: the same sentence vectors.
    Path ids = tmp.resolve("ids.parquet");
    spark.read().parquet(out.resolve("embeddings").toString())
        .select(col("id"), col("input_ids").as("ids"), col("token_type_ids").as("types"))
        .write().parquet(ids.toString());
    Path idsOut = tmp.resolve("ids-out");
    run("input { path = \"" + ids + "\", ids-column = ids, type-ids-column = types }",
        "model.path = \"" + model + "\"",
        "output { path = \"" + idsOut + "\", token-embeddings = false }");
    for (Row r : spark.read().parquet(idsOut.resolve("embeddings").toString()).collectAsList()) {
      Row pair = byId.get(r.<String>getAs("id"));
      assertArrayEquals(SparkInputs.vector(pair.getAs("pooled")),
          SparkInputs.vector(r.getAs("pooled")), 1e-6, r.<String>getAs("id"));
    }
  }

  @Test
  void theTransformerEncodesPairsAlikeAfterSavingAndLoading() throws Exception {
    SparkSession spark = SparkTestSession.get();
    JsonNode expected = new ObjectMapper().readTree(
        Path.of("src/test/resources/pairs/minilm-32.json").toFile());
    new EncoderTransformer().setModelPath(SharedModels.miniLm().toString())
        .setTextPairCols(new String[] {"query", "passage"}).setMaxTokens(32).setOutputCol("")
        .save(tmp.resolve("pairs-transformer").toString());
    EncoderTransformer loaded = EncoderTransformer.load(tmp.resolve("pairs-transformer")
        .toString());
    List<Row> rows = loaded.transform(spark.createDataFrame(pairRows(expected), PAIRS))
        .collectAsList();
    Map<String, Row> byId = new HashMap<>();
    rows.forEach(r -> byId.put(r.getAs("id"), r));
    for (JsonNode p : expected) {
      Row row = byId.get(p.get("id").asText());
      assertArrayEquals(JobRunner.ints(p.get("input_ids")),
          JobRunner.ints(row.getList(row.fieldIndex("input_ids"))));
      assertArrayEquals(JobRunner.ints(p.get("token_type_ids")),
          JobRunner.ints(row.getList(row.fieldIndex("token_type_ids"))));
    }
  }

}
