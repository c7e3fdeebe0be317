package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.testing.RealModelReference;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.ThreadsJobs;
import io.corpus.encoder.testing.Tolerances;
import io.corpus.encoder.testing.SparkTestSession;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job from a text or token-id column and a Hugging Face model folder: all-MiniLM-L6-v2 on its
 * 30 reference texts equals Hugging Face's tokenizer, ONNX Runtime's hidden states and
 * sentence-transformers' vectors; bad rows go to rejects/ with a reason; a wrong folder, key or
 * column is refused in one line before any task runs.
 */
class EncodeJobTextTest {
  @TempDir
  Path tmp;

  private static final class Run {
    final int exit;
    final String err;

    Run(int exit, String err) {
      this.exit = exit;
      this.err = err;
    }
  }

  private static Run run(Path config) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = new EncodeCommand(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString()});
    return new Run(exit, err.toString(StandardCharsets.UTF_8));
  }

  private Path config(String... lines) throws IOException {
    Path config = tmp.resolve("job-" + System.nanoTime() + ".conf");
    Files.writeString(config, String.join("\n", lines) + "\nexecution.progress = false\n"
        + "output.mode = overwrite\n");
    return config;
  }

  private static String quoted(Path path) {
    return "\"" + path + "\"";
  }

  /** The job on the reference's texts with its model folder, to {@code output}. */
  private Run runOnReferenceTexts(RealModelReference reference, Path output, String... more)
      throws IOException {
    List<String> lines = new java.util.ArrayList<>(List.of(
        "input.path = " + quoted(reference.folder().resolve("expected/texts.parquet")),
        "input.text-column = text", "model.path = " + quoted(reference.folder()),
        "output.path = " + quoted(output)));
    lines.addAll(List.of(more));
    return run(config(lines.toArray(new String[0])));
  }

  @Test
  void textColumnGivesTheReferenceIdsHiddenStatesAndSentenceVectors() throws Exception {
    SparkSession spark = SparkTestSession.get();
    RealModelReference reference = RealModelReference.miniLm(spark);
    Path output = tmp.resolve("out");
    Run run = runOnReferenceTexts(reference, output);
    assertEquals(0, run.exit, run.err);
    List<Row> rows = spark.read().parquet(output.resolve("embeddings").toString())
        .collectAsList();
    assertEquals(List.of("id", "text", "input_ids", "tokens", "embeddings", "pooled",
        "input_hash"),
        Arrays.asList(rows.get(0).schema().fieldNames()));
    reference.assertMatches(rows, "input_ids", "embeddings", "pooled");
    Row first = rows.stream().filter(r -> r.getAs("id").equals(rows.get(0).getAs("id")))
        .findFirst().orElseThrow();
    assertEquals("[CLS]", first.getList(first.fieldIndex("tokens")).get(0));

    RunSummary summary = RunSummary.read(output.resolve("run-summary.json"));
    assertEquals(30, summary.rowsRead());
    assertEquals(30, summary.rowsWritten());
    assertEquals(0, summary.rowsRejected());
    assertEquals(1, summary.rowsTruncated(), "one reference text is longer than 256 tokens");
    assertEquals("text", summary.model().get("input"));
    assertEquals(256, summary.model().get("max_tokens"));
  }

  /**
   * output.dimensions = 128: the reference's sentence vector cut to its first 128 values, then
   * made a unit vector again (cutting after the normalization would leave norms below 1).
   */
  @Test
  void matryoshkaDimensionsCutThePooledVectorBeforeItIsNormalized() throws Exception {
    SparkSession spark = SparkTestSession.get();
    RealModelReference reference = RealModelReference.miniLm(spark);
    Path output = tmp.resolve("out");
    Run run = runOnReferenceTexts(reference, output, "output.dimensions = 128",
        "output.token-embeddings = false");
    assertEquals(0, run.exit, run.err);
    double worst = 1;
    for (Row r : spark.read().parquet(output.resolve("embeddings").toString()).collectAsList()) {
      double[] got = SparkInputs.vector(r.getAs("pooled"));
      assertEquals(128, got.length);
      double norm = Math.sqrt(java.util.stream.DoubleStream.of(got).map(v -> v * v).sum());
      assertEquals(1.0, norm, 1e-5, "a unit vector");
      double[] want = Arrays.copyOf(reference.rows().get((String) r.getAs("id")).sentence(),
          128);
      worst = Math.min(worst, Tolerances.cosine(got, want));
    }
    assertTrue(worst >= RealModelReference.COSINE, "worst cosine " + worst);
    RunSummary summary = RunSummary.read(output.resolve("run-summary.json"));
    assertEquals(128, summary.outputs().get("pooled_width"));
    assertEquals(128, summary.settings().get("output.dimensions"));
    assertEquals(false, summary.settings().get("output.token-embeddings"));
    assertEquals("mean", summary.settings().get("output.pooling"), "auto, as resolved");
  }

  @Test
  void idsColumnAsBigintGivesTheSameHiddenStatesAndVectors() throws Exception {
    SparkSession spark = SparkTestSession.get();
    RealModelReference reference = RealModelReference.miniLm(spark);
    Path input = tmp.resolve("ids.parquet");
    spark.read().parquet(reference.folder().resolve("expected/expected.parquet").toString())
        .select(col("id"), col("input_ids").cast("array<bigint>").as("ids"))
        .coalesce(1).write().parquet(input.toString());
    Path output = tmp.resolve("out");
    Run run = run(config(
        "input.path = " + quoted(input),
        "input.ids-column = ids",
        "model.path = " + quoted(reference.folder()),
        "output.path = " + quoted(output)));
    assertEquals(0, run.exit, run.err);
    List<Row> rows = spark.read().parquet(output.resolve("embeddings").toString())
        .collectAsList();
    reference.assertMatches(rows, null, "embeddings", "pooled");
    assertEquals(0, RunSummary.read(output.resolve("run-summary.json")).rowsTruncated(),
        "the reference ids are already cut to 256");
  }

  @Test
  void badTextAndIdsAreSetAsideWithAReasonAndTheCountsAddUp() throws Exception {
    SparkSession spark = SparkTestSession.get();
    Path folder = SharedModels.miniLm();
    StructType schema = new StructType().add("id", DataTypes.StringType)
        .add("text", DataTypes.StringType);
    String longText = "word ".repeat(40);
    List<Row> texts = List.of(RowFactory.create("ok", "A short sentence."),
        RowFactory.create("empty", ""), RowFactory.create("null-text", null),
        RowFactory.create("long", longText), RowFactory.create(null, "no id"));
    Path textInput = tmp.resolve("texts.parquet");
    spark.createDataFrame(texts, schema).coalesce(1).write().parquet(textInput.toString());
    Path output = tmp.resolve("texts-out");
    Run run = run(config(
        "input.path = " + quoted(textInput), "input.text-column = text",
        "input.max-tokens = 16", "input.on-too-long = reject",
        "model.path = " + quoted(folder), "output.path = " + quoted(output),
        "output.token-embeddings = false"));
    assertEquals(0, run.exit, run.err);
    RunSummary summary = RunSummary.read(output.resolve("run-summary.json"));
    assertEquals(5, summary.rowsRead());
    assertEquals(2, summary.rowsWritten());
    assertEquals(Map.of("null-text", 1L, "too-long", 1L, "null-id", 1L),
        summary.rejectedByRule());
    Dataset<Row> written = spark.read().parquet(output.resolve("embeddings").toString());
    assertFalse(Arrays.asList(written.columns()).contains("embeddings"),
        "token-embeddings = false leaves the token vectors out");
    for (Row r : written.collectAsList()) {
      assertEquals(384, r.getList(r.fieldIndex("pooled")).size());
    }
    Row tooLong = spark.read().parquet(output.resolve("rejects").toString())
        .where("reject_rule = 'too-long'").first();
    assertEquals("long", tooLong.getAs("id"));
    assertTrue(tooLong.<String>getAs("reject_reason").contains("16 tokens"),
        tooLong.<String>getAs("reject_reason"));

    StructType idSchema = new StructType().add("id", DataTypes.StringType)
        .add("ids", DataTypes.createArrayType(DataTypes.IntegerType));
    List<Row> ids = List.of(RowFactory.create("ok", List.of(101, 2023, 102)),
        RowFactory.create("outside", List.of(101, 40000, 102)),
        RowFactory.create("negative", List.of(101, -1, 102)),
        RowFactory.create("empty", List.of()), RowFactory.create("null-ids", null),
        RowFactory.create("long", new ArrayList<>(java.util.Collections.nCopies(300, 1000))));
    Path idInput = tmp.resolve("ids.parquet");
    spark.createDataFrame(ids, idSchema).coalesce(1).write().parquet(idInput.toString());
    Path idOutput = tmp.resolve("ids-out");
    run = run(config(
        "input.path = " + quoted(idInput), "input.ids-column = ids",
        "model.path = " + quoted(folder), "output.path = " + quoted(idOutput)));
    assertEquals(0, run.exit, run.err);
    summary = RunSummary.read(idOutput.resolve("run-summary.json"));
    assertEquals(6, summary.rowsRead());
    assertEquals(2, summary.rowsWritten(), "ok, and long cut to 256");
    assertEquals(1, summary.rowsTruncated());
    assertEquals(Map.of("bad-token-id", 2L, "empty-ids", 1L, "null-ids", 1L),
        summary.rejectedByRule());
    Map<String, String> reasons = spark.read().parquet(idOutput.resolve("rejects").toString())
        .collectAsList().stream().collect(Collectors.toMap(r -> r.getAs("id"),
            r -> r.getAs("reject_reason")));
    assertEquals("bad-token-id: token 1 has id 40000, outside the vocabulary 0..30521",
        reasons.get("outside"));
    Row cut = spark.read().parquet(idOutput.resolve("embeddings").toString())
        .where("id = 'long'").first();
    assertEquals(256, cut.getList(cut.fieldIndex("embeddings")).size());
  }

  @Test
  void wrongFolderKeyTokenizerOrColumnIsOneLineBeforeAnyTask() throws Exception {
    SparkSession spark = SparkTestSession.get();
    Path folder = SharedModels.miniLm();
    Path texts = folder.resolve("expected/texts.parquet");
    Path pickleOnly = Files.createDirectories(tmp.resolve("pickle"));
    Files.copy(folder.resolve("config.json"), pickleOnly.resolve("config.json"));
    Files.writeString(pickleOnly.resolve("pytorch_model.bin"), "not really");
    Path noTokenizer = Files.createDirectories(tmp.resolve("no-tokenizer"));
    for (String file : List.of("config.json", "model.safetensors")) {
      Files.createSymbolicLink(noTokenizer.resolve(file), folder.resolve(file));
    }
    Path badTokenizer = Files.createDirectories(tmp.resolve("bad-tokenizer"));
    for (String file : List.of("config.json", "model.safetensors")) {
      Files.createSymbolicLink(badTokenizer.resolve(file), folder.resolve(file));
    }
    Files.writeString(badTokenizer.resolve("tokenizer.json"), "{\"model\": {\"type\": \"Word");
    Path numbers = tmp.resolve("numbers.parquet");
    spark.range(3).selectExpr("cast(id as string) as id", "cast(id as int) as text")
        .write().parquet(numbers.toString());
    String out = "output.path = " + quoted(tmp.resolve("never"));

    try (ThreadsJobs counted = ThreadsJobs.count()) {
      List<Run> runs = List.of(
          run(config("input.path = " + quoted(texts), "input.text-column = text",
              "model.path = " + quoted(pickleOnly), out)),
          run(config("input.path = " + quoted(texts), "input.text-column = text",
              "model.path = " + quoted(folder), "model.heads = 8", out)),
          run(config("input.path = " + quoted(texts), "input.text-column = text",
              "model.path = " + quoted(folder), "model.window = 16", out)),
          run(config("input.path = " + quoted(texts), "input.text-column = text",
              "model.path = " + quoted(noTokenizer), out)),
          run(config("input.path = " + quoted(numbers), "input.text-column = text",
              "model.path = " + quoted(folder), out)),
          run(config("input.path = " + quoted(texts), "input.text-column = text",
              "model.path = " + quoted(badTokenizer), out)));
      List<String> expected = List.of(
          "holds only pytorch_model.bin, a pickle",
          "model.heads = 8 contradicts " + folder.resolve("config.json")
              + ": num_attention_heads = 12",
          "model.window = 16 contradicts " + folder.resolve("config.json") + ": model_type = "
              + "bert, whose attention windows, if any, are its config.json's",
          "input.text-column needs the model folder's tokenizer.json, which is missing from "
              + noTokenizer,
          "Column text must be of type string but was int",
          "Cannot load " + badTokenizer.resolve("tokenizer.json") + " as a Hugging Face "
              + "tokenizer: ");
      for (int i = 0; i < runs.size(); i++) {
        Run r = runs.get(i);
        assertEquals(1, r.exit, r.err);
        assertEquals(1, r.err.strip().lines().count(), "one line: " + r.err);
        assertTrue(r.err.startsWith("error: ") && r.err.contains(expected.get(i)), r.err);
      }
      assertEquals(0, counted.jobs(), "no Spark job ran");
    }
    assertFalse(Files.exists(tmp.resolve("never")));
  }
}
