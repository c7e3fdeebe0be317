package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
import java.nio.file.Files;
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
 * Long documents (1,139 to 5,470 tokens of license text with accents, CJK and emoji) cut into
 * windows of 256 tokens with an overlap of 32 on all-MiniLM-L6-v2: every window's ids and
 * code-point span equal Hugging Face's Rust tokenizer's overflowing windows (npm's tokenizers
 * 0.13.3, src/test/resources/chunks, made by jobs/samples/chunk_ids.js), and its vector is that of its
 * ids encoded on their own.
 */
class TextChunksTest {
  @TempDir
  Path tmp;

  private JobRunner.Result run(String... lines) throws Exception {
    return JobRunner.run(tmp, lines);
  }

  /** Python's text[start:end]: code points, not Java's UTF-16 units. */
  private static String slice(String text, int start, int end) {
    return text.substring(text.offsetByCodePoints(0, start), text.offsetByCodePoints(0, end));
  }

  @Test
  void windowsEqualTheTokenizersAndTheirVectorsThoseOfTheirIds() throws Exception {
    SparkSession spark = SparkTestSession.get();
    JsonNode expected = new ObjectMapper().readTree(
        Path.of("src/test/resources/chunks/minilm-256-32.json").toFile());
    List<Row> texts = new ArrayList<>();
    int windows = 0;
    for (JsonNode doc : expected) {
      texts.add(RowFactory.create(doc.get("id").asText(), doc.get("text").asText()));
      windows += doc.get("windows").size();
    }
    StructType schema = new StructType().add("id", DataTypes.StringType)
        .add("text", DataTypes.StringType);
    Path input = tmp.resolve("docs.parquet");
    spark.createDataFrame(texts, schema).coalesce(1).write().parquet(input.toString());
    Path model = SharedModels.miniLm();
    Path out = tmp.resolve("out");
    JobRunner.Result result = run("input { path = \"" + input + "\", text-column = text,",
        "  on-too-long = chunk, chunk-overlap = 32 }", "model.path = \"" + model + "\"",
        "output { path = \"" + out + "\", token-embeddings = false }");
    assertEquals(0, result.code(), result.error());

    Map<String, Row> byKey = new HashMap<>();
    spark.read().parquet(out.resolve("embeddings").toString()).collectAsList()
        .forEach(r -> byKey.put(r.getAs("id") + "/" + r.getAs("chunk"), r));
    assertEquals(windows, byKey.size());
    for (JsonNode doc : expected) {
      String text = doc.get("text").asText();
      for (int w = 0; w < doc.get("windows").size(); w++) {
        JsonNode want = doc.get("windows").get(w);
        Row got = byKey.get(doc.get("id").asText() + "/" + w);
        String where = doc.get("id").asText() + " window " + w;
        assertArrayEquals(JobRunner.ints(want.get("ids")),
            JobRunner.ints(got.getList(got.fieldIndex("input_ids"))), where);
        assertEquals(want.get("start").asInt(), (int) got.getAs("chunk_start"), where);
        assertEquals(want.get("end").asInt(), (int) got.getAs("chunk_end"), where);
        String window = slice(text, got.getAs("chunk_start"), got.getAs("chunk_end"));
        assertEquals(window.isEmpty(), want.get("ids").size() == 2, where);
        assertEquals(text, got.getAs("text"), where + ": the input's columns on every window");
      }
    }
    // The same texts with whitespace at their edges, which sentence-transformers strips: the
    // same windows, their offsets still into the text as given (four code points later).
    String lead = "\n\u3000 \u00a0";
    List<Row> padded = new ArrayList<>();
    for (JsonNode doc : expected) {
      padded.add(RowFactory.create(doc.get("id").asText(), lead + doc.get("text").asText()
          + "\t\r\n"));
    }
    Path paddedInput = tmp.resolve("padded.parquet");
    spark.createDataFrame(padded, schema).coalesce(1).write().parquet(paddedInput.toString());
    Path paddedOut = tmp.resolve("padded-out");
    result = run("input { path = \"" + paddedInput + "\", text-column = text,",
        "  on-too-long = chunk, chunk-overlap = 32 }", "model.path = \"" + model + "\"",
        "output { path = \"" + paddedOut + "\", token-embeddings = false }");
    assertEquals(0, result.code(), result.error());
    for (Row got : spark.read().parquet(paddedOut.resolve("embeddings").toString())
        .collectAsList()) {
      Row same = byKey.get(got.getAs("id") + "/" + got.getAs("chunk"));
      String where = got.getAs("id") + " window " + got.getAs("chunk") + ", padded";
      assertEquals(same.<Object>getAs("input_ids"), got.<Object>getAs("input_ids"), where);
      if ((int) same.getAs("chunk_end") > 0) {
        assertEquals((int) same.getAs("chunk_start") + 4, (int) got.getAs("chunk_start"), where);
        assertEquals((int) same.getAs("chunk_end") + 4, (int) got.getAs("chunk_end"), where);
      }
    }

    RunSummary summary = RunSummary.read(out.resolve("run-summary.json"));
    assertEquals(expected.size(), summary.rowsRead());
    assertEquals(expected.size(), summary.rowsWritten());
    assertEquals(windows, summary.chunksWritten());
    assertTrue(summary.balanced());

    // Each window's ids on their own: the same sentence vector.
    Path ids = tmp.resolve("ids.parquet");
    spark.read().parquet(out.resolve("embeddings").toString())
        .select(col("id"), col("chunk"), col("input_ids").as("ids")).write()
        .parquet(ids.toString());
    Path idsOut = tmp.resolve("ids-out");
    result = run("input { path = \"" + ids + "\", id-column = id, ids-column = ids }",
        "model.path = \"" + model + "\"",
        "output { path = \"" + idsOut + "\", token-embeddings = false }");
    assertEquals(0, result.code(), result.error());
    double worst = 1;
    for (Row r : spark.read().parquet(idsOut.resolve("embeddings").toString()).collectAsList()) {
      double[] a = SparkInputs.vector(r.getAs("pooled"));
      double[] b = SparkInputs.vector(byKey.get(r.getAs("id") + "/" + r.getAs("chunk"))
          .getAs("pooled"));
      worst = Math.min(worst, Tolerances.cosine(a, b));
    }
    System.out.printf("TextChunksTest: %d windows, worst cosine to their ids on their own 1 - "
        + "%.1e%n", windows, 1 - worst);
    assertTrue(worst >= 1 - 1e-6, "worst cosine " + worst);
  }

  /**
   * A text of many windows flows through batches of the usual size (it used to make one batch of
   * all its windows: a 1 MB document, about 250,000 tokens, held gigabytes and showed no progress
   * until it was done), with the same vectors as one batch of everything.
   */
  @Test
  void aLongTextFlowsThroughBatchesOfTheUsualSize() throws Exception {
    SparkSession spark = SparkTestSession.get();
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 60; i++) {
      text.append("Sentence ").append(i).append(" of a long document about rivers and tides. ");
    }
    Path input = tmp.resolve("long.parquet");
    spark.createDataFrame(List.of(RowFactory.create("long", text.toString()),
        RowFactory.create("short", "A short one.")), new StructType()
            .add("id", DataTypes.StringType).add("text", DataTypes.StringType))
        .coalesce(1).write().parquet(input.toString());
    Map<String, double[]> vectors = new HashMap<>();
    for (int batchTokens : new int[] {64, 100_000}) {
      Path out = tmp.resolve("out-" + batchTokens);
      JobRunner.Result result = run("input { path = \"" + input + "\", text-column = text,",
          "  max-tokens = 32, on-too-long = chunk, chunk-overlap = 4 }",
          "model.path = \"" + SharedModels.miniLm() + "\"",
          "output { path = \"" + out + "\", token-embeddings = false }",
          "execution.batch-tokens = " + batchTokens);
      assertEquals(0, result.code(), result.error());
      RunSummary summary = RunSummary.read(out.resolve("run-summary.json"));
      assertEquals(2, summary.rowsWritten());
      assertTrue(summary.chunksWritten() > 20, "windows: " + summary.chunksWritten());
      if (batchTokens == 64) {
        assertTrue(summary.largestBatchTokens() < 64 + 32, "largest batch "
            + summary.largestBatchTokens() + " tokens for batch-tokens 64 and 32-token windows");
      }
      for (Row r : spark.read().parquet(out.resolve("embeddings").toString()).collectAsList()) {
        String key = r.getAs("id") + "/" + r.getAs("chunk");
        double[] v = SparkInputs.vector(r.getAs("pooled"));
        double[] other = vectors.putIfAbsent(key, v);
        if (other != null) {
          assertTrue(Tolerances.cosine(v, other) >= 1 - 1e-6, key);
        }
      }
    }
  }

  @Test
  void anOverlapNotSmallerThanTheWindowIsRefusedBeforeAnyTask() throws Exception {
    Path model = SharedModels.miniLm();
    JobRunner.Result result = run("input { path = \"" + model.resolve("expected/texts.parquet")
        + "\", text-column = text, on-too-long = chunk, chunk-overlap = 254 }",
        "model.path = \"" + model + "\"", "output.path = \"" + tmp.resolve("never") + "\"");
    assertEquals(1, result.code());
    assertEquals("error: The chunk overlap 254 must be smaller than a window's 254 content "
        + "tokens (256 tokens less 2 special ones)", result.error());
  }

  /** Maps of a kept id come for all its windows, keyed by id and chunk; the report draws one. */
  @Test
  void mapsOfAKeptIdComeForEachWindow() throws Exception {
    SparkSession spark = SparkTestSession.get();
    JsonNode expected = new ObjectMapper().readTree(
        Path.of("src/test/resources/chunks/minilm-256-32.json").toFile());
    List<Row> texts = new ArrayList<>();
    for (JsonNode doc : expected) {
      texts.add(RowFactory.create(doc.get("id").asText(), doc.get("text").asText()));
    }
    StructType schema = new StructType().add("id", DataTypes.StringType)
        .add("text", DataTypes.StringType);
    Path input = tmp.resolve("docs.parquet");
    spark.createDataFrame(texts, schema).coalesce(1).write().parquet(input.toString());
    Path out = tmp.resolve("maps");
    JobRunner.Result result = run("input { path = \"" + input + "\", text-column = text,",
        "  on-too-long = chunk, chunk-overlap = 32 }",
        "model.path = \"" + SharedModels.miniLm() + "\"",
        "output { path = \"" + out + "\", token-embeddings = false,",
        "  attention { enabled = true, layers = [0], heads = [0], ids = [doc-1k] },",
        "  report.enabled = true }");
    assertEquals(0, result.code(), result.error());
    List<Row> maps = spark.read().parquet(out.resolve("attention").toString())
        .select("id", "chunk").orderBy("chunk").collectAsList();
    assertEquals(expected.get(2).get("windows").size(), maps.size());
    for (int w = 0; w < maps.size(); w++) {
      assertEquals("doc-1k", maps.get(w).getString(0));
      assertEquals(w, maps.get(w).getInt(1));
    }
    assertTrue(Files.readString(out.resolve("report/index.html")).contains("doc-1k"));
  }
}
