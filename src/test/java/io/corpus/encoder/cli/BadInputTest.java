package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.unhex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Input that used to go through silently wrong: text that is not UTF-8, binary ids, a tokenizer
 * whose ids the embedding table does not have.
 */
class BadInputTest {
  @TempDir
  Path tmp;

  private JobRunner.Result run(String... lines) throws Exception {
    return JobRunner.run(tmp, lines);
  }

  private static String quoted(Path path) {
    return "\"" + path + "\"";
  }

  /**
   * The rows of {@code sql} (an id and a text column) through all-MiniLM-L6-v2 into
   * {@code tmp/out}; the job must succeed. Returns its summary.
   */
  private RunSummary textJob(String sql) throws Exception {
    Path input = tmp.resolve("texts.parquet");
    SparkTestSession.get().sql(sql).coalesce(1).write().parquet(input.toString());
    Path out = tmp.resolve("out");
    JobRunner.Result result = run("input.path = " + quoted(input), "input.text-column = text",
        "model.path = " + quoted(SharedModels.miniLm()), "output.path = " + quoted(out));
    assertEquals(0, result.code(), result.error());
    return RunSummary.read(out.resolve("run-summary.json"));
  }

  @Test
  void textThatIsNotUtf8IsSetAsideWithTheOffendingByte() throws Exception {
    SparkSession spark = SparkTestSession.get();
    // "ab" 0xFF "cd": a byte no UTF-8 text holds; Spark keeps a binary's bytes as they are.
    RunSummary summary = textJob("SELECT 'ok' AS id, 'A short sentence.' AS text UNION ALL "
        + "SELECT 'bad', cast(X'6162FF6364' AS string)");
    Path out = tmp.resolve("out");
    assertEquals(Map.of("invalid-utf8", 1L), summary.rejectedByRule());
    assertEquals(1, summary.rowsWritten());
    Row reject = spark.read().parquet(out.resolve("rejects").toString()).first();
    assertEquals("invalid-utf8: text is not valid UTF-8: byte 2 of 5 is 0xff",
        reject.getAs("reject_reason"));
    // The copy in rejects/ is valid UTF-8 (the bad byte replaced), so every reader opens it.
    assertEquals("ab\uFFFDcd", reject.getAs("text"));
  }

  @Test
  void aRowWithAStringThatIsNotUtf8InAnyColumnIsSetAsideNamingTheColumn() throws Exception {
    SparkSession spark = SparkTestSession.get();
    // 0xFF in the id, in another string column, and inside an array of strings.
    RunSummary summary = textJob("SELECT 'ok' AS id, 'A short sentence.' AS text, 'fine' AS "
        + "title, array('a', 'b') AS tags UNION ALL "
        + "SELECT cast(X'6964FF' AS string), 'Another one.', 'fine', array('a') UNION ALL "
        + "SELECT 'title', 'Third.', cast(X'6162FF6364' AS string), array('a') UNION ALL "
        + "SELECT 'tags', 'Fourth.', 'fine', array('a', cast(X'FF' AS string))");
    Path out = tmp.resolve("out");
    assertEquals(Map.of("invalid-utf8", 3L), summary.rejectedByRule());
    assertEquals(1, summary.rowsWritten());
    spark.read().parquet(out.resolve("rejects").toString()).createOrReplaceTempView("rejects");
    Map<String, String> reasons = spark.sql("SELECT id, reject_reason FROM rejects")
        .collectAsList().stream().collect(Collectors.toMap(r -> r.getString(0),
            r -> r.getString(1)));
    assertEquals(Map.of(
        "id\uFFFD", "invalid-utf8: column id is not valid UTF-8: byte 2 of 3 is 0xff",
        "title", "invalid-utf8: column title is not valid UTF-8: byte 2 of 5 is 0xff",
        "tags", "invalid-utf8: column tags is not valid UTF-8: element 1, byte 0 of 1 is 0xff"),
        reasons);
    // Every string of both tables is UTF-8, the rejects' copies repaired.
    spark.read().parquet(out.resolve("embeddings").toString()).createOrReplaceTempView("written");
    for (String table : List.of("written", "rejects")) {
      assertEquals(0L, spark.sql("SELECT count(*) FROM " + table + " WHERE NOT is_valid_utf8(id) "
          + "OR NOT is_valid_utf8(title) OR exists(tags, t -> NOT is_valid_utf8(t))")
          .first().getLong(0), table);
    }
  }

  @Test
  void idsOnMoreThanOneRowAreCounted() throws Exception {
    RunSummary summary = textJob("SELECT * FROM VALUES ('a', 'One.'), ('a', 'Two.'), "
        + "('b', 'Three.'), ('c', 'Four.'), ('c', 'Five.'), ('c', 'Six.') AS t(id, text)");
    Path out = tmp.resolve("out");
    assertEquals(6, summary.rowsWritten(), "every row is written");
    assertEquals(2, summary.duplicateIds(), "a and c");
    assertEquals(3, summary.rowsRepeatingAnId(), "a once, c twice");
    assertTrue(EncodeCommand.doneLine(summary, out.toString(), false)
        .contains(", 2 ids on more than one row, "));
  }

  /**
   * An id repeated in the input only on a row set aside is not repeated in the written table:
   * the input's count sees it, so the written table is counted (not taken as free of them).
   */
  @Test
  void anIdRepeatedOnlyBesideARejectedRowIsNoDuplicate() throws Exception {
    RunSummary summary = textJob("SELECT * FROM VALUES ('a', 'One.'), ('a', NULL), "
        + "('b', 'Three.'), (NULL, 'Four.'), (NULL, 'Five.') AS t(id, text)");
    assertEquals(2, summary.rowsWritten());
    assertEquals(Map.of("null-text", 1L, "null-id", 2L), summary.rejectedByRule());
    assertEquals(0, summary.duplicateIds(), "a is written once; null ids are never written");
    assertEquals(0, summary.rowsRepeatingAnId());
  }

  @Test
  void aTokenizerWithIdsBeyondTheEmbeddingTableIsRefusedBeforeAnyTask() throws Exception {
    Path folder = SharedModels.miniLm();
    Path mixed = Files.createDirectories(tmp.resolve("mixed"));
    for (String file : List.of("config.json", "model.safetensors")) {
      Files.createSymbolicLink(mixed.resolve(file), folder.resolve(file));
    }
    String tokenizer = Files.readString(folder.resolve("tokenizer.json"));
    Files.writeString(mixed.resolve("tokenizer.json"), tokenizer.replaceFirst(
        "\"added_tokens\":\\s*\\[", "\"added_tokens\": [{\"id\": 40000, \"content\": "
            + "\"[NEW]\", \"single_word\": false, \"lstrip\": false, \"rstrip\": false, "
            + "\"normalized\": false, \"special\": true},"));
    JobRunner.Result result = run(
        "input.path = " + quoted(folder.resolve("expected/texts.parquet")),
        "input.text-column = text", "model.path = " + quoted(mixed),
        "output.path = " + quoted(tmp.resolve("never")));
    assertEquals(1, result.code());
    String refusal = "error: " + mixed.resolve("tokenizer.json") + " has ids up to 40000 (30523 "
        + "tokens), but the model's embedding table has 30522 rows (ids 0..30521): the "
        + "tokenizer and the weights are not of the same model";
    assertEquals(refusal, result.error());

    // jobs/encode --check finds the same, without Spark; and passes the folder as it came.
    Path config = tmp.resolve("check.conf");
    Files.writeString(config, "input { path = \"" + folder.resolve("expected/texts.parquet")
        + "\", text-column = text }\nmodel.path = \"" + mixed + "\"\noutput.path = \""
        + tmp.resolve("never") + "\"\n");
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    assertEquals(1, new EncodeCommand(new java.io.PrintStream(out),
        new java.io.PrintStream(err)).run(new String[] {"--config", config.toString(),
            "--check"}));
    assertEquals(refusal, err.toString(StandardCharsets.UTF_8).strip());
    Files.writeString(config, Files.readString(config).replace(mixed.toString(),
        folder.toString()));
    out.reset();
    assertEquals(0, new EncodeCommand(new java.io.PrintStream(out),
        new java.io.PrintStream(err)).run(new String[] {"--config", config.toString(),
            "--check"}));
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("tokenizer: 30,522 ids (highest "
        + "30,521) for an embedding table of 30,522 rows; at most 256 tokens a sequence"),
        out.toString(StandardCharsets.UTF_8));
  }

  @Test
  void binaryIdsAreSampledAndNamedByTheirHexadecimalForm() throws Exception {
    SparkSession spark = SparkTestSession.get();
    GoldenCase golden = GoldenCase.named("seed-shapes");
    Path input = tmp.resolve("binary-ids.parquet");
    spark.read().parquet(SparkInputs.parquet(spark, golden, tmp).toString())
        .withColumn("id", unhex(org.apache.spark.sql.functions.hex(col("id"))))
        .write().parquet(input.toString());
    String first = golden.inputs().get(0).id();
    String hex = HexFormat.of().formatHex(first.getBytes(StandardCharsets.UTF_8));
    Path out = tmp.resolve("out");
    JobRunner.Result result = run("input.path = " + quoted(input),
        golden.masked() ? "input.mask-column = mask" : "",
        "model.weights = " + quoted(golden.weights()),
        "model.naming = " + golden.naming().configName(), "model.heads = " + golden.heads(),
        "output.path = " + quoted(out), "output.attention.enabled = true",
        "output.attention.ids = [\"" + hex + "\"]");
    assertEquals(0, result.code(), result.error());
    TreeSet<String> kept = spark.read().parquet(out.resolve("attention").toString())
        .collectAsList().stream().map(r -> HexFormat.of().formatHex((byte[]) r.getAs("id")))
        .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(new TreeSet<>(List.of(hex)), kept);
  }

  /** A path from an environment variable (the suite sets it) is named, never shown. */
  @Test
  void aPathFromTheEnvironmentIsNamedNeverShown() throws Exception {
    String secret = System.getenv("ENCODER_TEST_SECRET");
    assertTrue(secret != null && secret.contains("hunter2"), "the suite sets the variable");
    Path input = SharedModels.miniLm().resolve("expected/texts.parquet");
    JobRunner.Result refused = run("input.path = " + quoted(input), "input.text-column = text",
        "model.path = ${?ENCODER_TEST_SECRET}", "output.path = " + quoted(tmp.resolve("out")));
    assertEquals(1, refused.code());
    assertEquals("error: model.path <model.path from the environment> is not a folder",
        refused.error().replaceAll("(is not a folder).*", "$1"));
    assertFalse(refused.error().contains("hunter2"), refused.error());

    Path config = tmp.resolve("check.conf");
    Files.writeString(config, String.join("\n", "input.path = " + quoted(input),
        "input.text-column = text", "model.path = " + quoted(SharedModels.miniLm()),
        "output.path = ${?ENCODER_TEST_SECRET}"));
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    int code = new EncodeCommand(new java.io.PrintStream(out),
        new java.io.PrintStream(new java.io.ByteArrayOutputStream())).run(
            new String[] {"--config", config.toString(), "--check"});
    String summary = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, code, summary);
    assertTrue(summary.contains("output: <output.path from the environment>; pooling mean"),
        summary);
    assertFalse(summary.contains("hunter2"), summary);
  }
}
