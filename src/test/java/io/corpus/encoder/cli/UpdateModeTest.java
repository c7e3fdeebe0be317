package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code output.mode = update} on all-MiniLM-L6-v2's 30 reference texts: after rows are deleted,
 * texts edited, another column changed and rows added, only the edited and new rows are encoded,
 * the others keep the earlier output's vectors bit for bit, and the output equals a full run on
 * the new table; what the earlier output was made with must not have changed.
 */
class UpdateModeTest {
  @TempDir
  Path tmp;

  private static String quoted(Path path) {
    return "\"" + path + "\"";
  }

  private record Run(int exit, String err) {}

  private Run run(Path input, Path output, String mode, String... more) throws IOException {
    return run(false, input, output, mode, more);
  }

  /** The job's refusal, and --check's, which must be the same line. */
  private String refusal(Path input, Path output, String mode, String... more)
      throws IOException {
    Run job = run(false, input, output, mode, more);
    Run check = run(true, input, output, mode, more);
    assertEquals(1, job.exit, job.err);
    assertEquals(job.err, check.err);
    return job.err;
  }

  private Run run(boolean check, Path input, Path output, String mode, String... more)
      throws IOException {
    Path config = tmp.resolve("job-" + System.nanoTime() + ".conf");
    Files.writeString(config, String.join("\n", List.of(
        "input.path = " + quoted(input), "input.text-column = text",
        "model.path = " + quoted(SharedModels.miniLm()), "output.path = " + quoted(output),
        "output.mode = " + mode, "execution.progress = false")) + "\n"
        + String.join("\n", more) + "\n");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = new EncodeCommand(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(check ? new String[] {"--config", config.toString(), "--check"}
            : new String[] {"--config", config.toString()});
    return new Run(exit, err.toString(StandardCharsets.UTF_8));
  }

  private static Map<String, Row> byId(SparkSession spark, Path output) {
    Map<String, Row> rows = new HashMap<>();
    for (Row r : spark.read().parquet(output.resolve("embeddings").toString()).collectAsList()) {
      String key = r.getAs("id").toString() + (List.of(r.schema().fieldNames()).contains("chunk")
          ? "#" + r.getAs("chunk") : "");
      assertEquals(null, rows.put(key, r), key + " twice");
    }
    return rows;
  }

  /** Every file of the update, reused rows and encoded ones, has a fresh run's schema. */
  private static void assertFreshSchema(Path full, Path updated) {
    assertEquals(1, schemas(full).size());
    assertEquals(schemas(full), schemas(updated));
  }

  private static java.util.Set<Object> schemas(Path output) {
    org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration();
    return new java.util.HashSet<>(io.corpus.encoder.io.ParquetFooters.schemas(
        io.corpus.encoder.io.ParquetFooters.dataFiles(output.resolve("embeddings").toString(),
            conf), conf).values());
  }

  private static float[] pooled(Row row) {
    List<Float> values = row.getList(row.fieldIndex("pooled"));
    float[] out = new float[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values.get(i);
    }
    return out;
  }

  @Test
  void updateEncodesOnlyChangedAndNewRowsAndEqualsAFullRun() throws Exception {
    SparkSession spark = SparkTestSession.get();
    Dataset<Row> texts = spark.read().parquet(
        SharedModels.miniLm().resolve("expected/texts.parquet").toString())
        .selectExpr("CAST(id AS STRING) AS id", "text");
    List<String> ids = texts.select("id").orderBy("id").as(
        org.apache.spark.sql.Encoders.STRING()).collectAsList();
    List<String> gone = ids.subList(0, 3);
    List<String> edited = ids.subList(3, 6);
    List<String> otherColumn = ids.subList(6, 9);
    Path v1 = tmp.resolve("v1.parquet");
    texts.withColumn("source", lit("first")).coalesce(1).write().parquet(v1.toString());
    Dataset<Row> kept = spark.read().parquet(v1.toString())
        .where(col("id").isin(gone.toArray()).unary_$bang())
        .withColumn("text", when(col("id").isin(edited.toArray()),
            concat(col("text"), lit(" And then it was edited."))).otherwise(col("text")))
        .withColumn("source", when(col("id").isin(otherColumn.toArray()), lit("second"))
            .otherwise(col("source")));
    Dataset<Row> added = spark.createDataFrame(List.of(
        org.apache.spark.sql.RowFactory.create("new-1", "A text nobody encoded before.", "new"),
        org.apache.spark.sql.RowFactory.create("new-2", "Noch ein neuer Text.", "new")),
        kept.schema());
    Path v2 = tmp.resolve("v2.parquet");
    kept.unionByName(added).coalesce(1).write().parquet(v2.toString());

    Path out = tmp.resolve("out");
    Run first = run(v1, out, "error-if-exists");
    assertEquals(0, first.exit, first.err);
    Map<String, Row> before = byId(spark, out);
    Run update = run(v2, out, "update");
    assertEquals(0, update.exit, update.err);
    RunSummary summary = RunSummary.read(out.resolve("run-summary.json"));
    assertEquals(Map.of("rows_encoded", 5L, "rows_reused", 24L, "rows_dropped", 3L),
        summary.update());
    assertEquals(29, summary.rowsRead());
    assertEquals(29, summary.rowsWritten());
    Path full = tmp.resolve("full");
    Run fullRun = run(v2, full, "error-if-exists");
    assertEquals(0, fullRun.exit, fullRun.err);

    assertFreshSchema(full, out);

    Map<String, Row> updated = byId(spark, out);
    Map<String, Row> expected = byId(spark, full);
    assertEquals(expected.keySet(), updated.keySet());
    for (String id : expected.keySet()) {
      Row want = expected.get(id);
      Row got = updated.get(id);
      for (String column : List.of("text", "source", "input_ids", "input_hash")) {
        assertEquals(want.<Object>getAs(column), got.<Object>getAs(column), id + " " + column);
      }
      double cosine = Tolerances.cosine(toDouble(pooled(want)), toDouble(pooled(got)));
      assertTrue(1 - cosine <= 1e-6, id + ": 1 - cosine " + (1 - cosine));
      if (before.containsKey(id) && !edited.contains(id)) {
        assertArrayEquals(pooled(before.get(id)), pooled(got), id + " was not reused");
      }
    }
    for (String id : edited) {
      assertFalse(java.util.Arrays.equals(pooled(before.get(id)), pooled(updated.get(id))),
          id + " was edited but kept its old vector");
    }
  }

  /** Texts cut into windows: an edited text's windows are all new, a kept text's all reused. */
  @Test
  void updateOfChunkedTextsReusesEveryWindowOfAnUnchangedText() throws Exception {
    SparkSession spark = SparkTestSession.get();
    String long1 = "The first long text goes on and on about rivers, hills and the weather of "
        + "the valley, then about the people who live there and their work.";
    String long2 = "A second long text describes a city: its streets, markets, bridges, "
        + "trains, and the noise that never stops at night.";
    Path v1 = tmp.resolve("v1.parquet");
    spark.createDataFrame(List.of(org.apache.spark.sql.RowFactory.create("a", long1),
        org.apache.spark.sql.RowFactory.create("b", long2),
        org.apache.spark.sql.RowFactory.create("c", "Short.")), new org.apache.spark.sql.types
            .StructType().add("id", "string").add("text", "string"))
        .coalesce(1).write().parquet(v1.toString());
    Path v2 = tmp.resolve("v2.parquet");
    spark.createDataFrame(List.of(org.apache.spark.sql.RowFactory.create("a", long1),
        org.apache.spark.sql.RowFactory.create("b", long2 + " Edited."),
        org.apache.spark.sql.RowFactory.create("d", long1 + " " + long2)),
        new org.apache.spark.sql.types.StructType().add("id", "string").add("text", "string"))
        .coalesce(1).write().parquet(v2.toString());
    String[] chunked = {"input.max-tokens = 16", "input.on-too-long = chunk"};
    Path out = tmp.resolve("out");
    assertEquals(0, run(v1, out, "error-if-exists", chunked).exit);
    Map<String, Row> before = byId(spark, out);
    Run update = run(v2, out, "update", chunked);
    assertEquals(0, update.exit, update.err);
    assertEquals(Map.of("rows_encoded", 2L, "rows_reused", 1L, "rows_dropped", 1L),
        RunSummary.read(out.resolve("run-summary.json")).update());
    Path full = tmp.resolve("full");
    assertEquals(0, run(v2, full, "error-if-exists", chunked).exit);
    assertFreshSchema(full, out);

    Map<String, Row> updated = byId(spark, out);
    Map<String, Row> expected = byId(spark, full);
    assertEquals(expected.keySet(), updated.keySet());
    assertTrue(expected.keySet().contains("a#2"), "text a is cut into 3 windows or more");
    for (String key : expected.keySet()) {
      assertEquals(expected.get(key).<Object>getAs("chunk_start"),
          updated.get(key).<Object>getAs("chunk_start"), key);
      double cosine = Tolerances.cosine(toDouble(pooled(expected.get(key))),
          toDouble(pooled(updated.get(key))));
      assertTrue(1 - cosine <= 1e-6, key + ": 1 - cosine " + (1 - cosine));
      if (key.startsWith("a#")) {
        assertArrayEquals(pooled(before.get(key)), pooled(updated.get(key)), key);
      }
    }
  }

  @Test
  void updateOfAnOutputMadeWithOtherSettingsIsRefusedAndLeavesItWhole() throws Exception {
    SparkSession spark = SparkTestSession.get();
    Path input = tmp.resolve("texts.parquet");
    spark.read().parquet(SharedModels.miniLm().resolve("expected/texts.parquet").toString())
        .limit(4).write().parquet(input.toString());
    Path out = tmp.resolve("out");
    assertEquals(0, run(input, out, "error-if-exists").exit);
    String summary = Files.readString(out.resolve("run-summary.json"));
    String refused = refusal(input, out, "update", "output.normalize = false");
    assertTrue(refused.contains("the earlier output at " + out + " was made with "
        + "output.normalize = true (this run: false), so its rows cannot be reused"), refused);
    assertEquals(summary, Files.readString(out.resolve("run-summary.json")));

    String nothing = refusal(input, tmp.resolve("never"), "update");
    assertTrue(nothing.contains("output.mode = update needs an earlier output of this job "
        + "at " + tmp.resolve("never")), nothing);
    Path noSummary = tmp.resolve("no-summary");
    assertEquals(0, run(input, noSummary, "error-if-exists").exit);
    Files.delete(noSummary.resolve("run-summary.json"));
    String lost = refusal(input, noSummary, "update");
    assertTrue(lost.contains("Output path " + noSummary + " is a folder this job did not write "
        + "(it has no run-summary.json; it holds .corpus-encoder-output, embeddings, rejects"),
        lost);
    Run maps = run(input, out, "update", "output.attention.stats = true");
    assertEquals(1, maps.exit);
    assertTrue(maps.err.contains("output.mode = update reuses the vectors of unchanged rows, "
        + "not their attention maps"), maps.err);
  }

  /**
   * A reused row passes the checks a fresh run makes (another column that is not UTF-8 sets it
   * aside); every file of the earlier output must have its schema; ids must keep their type.
   */
  @Test
  void updateChecksEveryRowItWritesEveryEarlierFileAndTheIdsType() throws Exception {
    SparkSession spark = SparkTestSession.get();
    Dataset<Row> texts = spark.read().parquet(
        SharedModels.miniLm().resolve("expected/texts.parquet").toString()).limit(6)
        .selectExpr("CAST(row_number() OVER (ORDER BY id) AS INT) AS id", "text",
            "'fine' AS note");
    Path v1 = tmp.resolve("v1.parquet");
    texts.coalesce(1).write().parquet(v1.toString());
    Path out = tmp.resolve("out");
    assertEquals(0, run(v1, out, "error-if-exists").exit);
    int badId = spark.read().parquet(v1.toString()).first().getInt(0);

    Path v2 = tmp.resolve("v2.parquet");
    spark.read().parquet(v1.toString()).withColumn("note", when(col("id").equalTo(badId),
        org.apache.spark.sql.functions.unhex(lit("66FF6F")).cast("string"))
        .otherwise(col("note"))).coalesce(1).write().parquet(v2.toString());
    Run update = run(v2, out, "update");
    assertEquals(0, update.exit, update.err);
    RunSummary summary = RunSummary.read(out.resolve("run-summary.json"));
    assertEquals(6, summary.rowsRead());
    assertEquals(5, summary.rowsWritten());
    assertEquals(Map.of("invalid-utf8", 1L), summary.rejectedByRule());
    assertFalse(byId(spark, out).containsKey(String.valueOf(badId)));
    Row rejected = spark.read().parquet(out.resolve("rejects").toString()).first();
    assertTrue(rejected.<String>getAs("reject_reason").contains("column note is not valid "
        + "UTF-8"), rejected.toString());

    Path strings = tmp.resolve("strings.parquet");
    spark.read().parquet(v1.toString()).selectExpr("format_string('%03d', id) AS id", "text",
        "note").coalesce(1).write().parquet(strings.toString());
    Run typed = run(strings, out, "update");
    assertEquals(1, typed.exit);
    assertTrue(typed.err.contains("output.mode = update matches rows by id: it is string in "
        + "the input and int in the earlier output at " + out), typed.err);

    // One part file of the earlier output loses its pooled column.
    Path embeddings = out.resolve("embeddings");
    Path part;
    try (java.util.stream.Stream<Path> files = Files.list(embeddings)) {
      part = files.filter(f -> f.getFileName().toString().endsWith(".parquet"))   // with rows
          .max(java.util.Comparator.comparingLong(f -> f.toFile().length())).orElseThrow();
    }
    Path copy = embeddings.resolve("part-88888-copy.parquet");
    Files.copy(part, copy);
    long copied = spark.read().parquet(part.toString()).count();
    Run repeated = run(v1, out, "update");
    assertEquals(1, repeated.exit);
    assertTrue(repeated.err.contains("the earlier output at " + out + " has " + (5 + copied)
        + " rows in embeddings/ where its run summary counts 5 (a part file copied, added or "
        + "removed since); it holds repeated ids, for example "), repeated.err);
    Files.delete(copy);
    Path lost = tmp.resolve("lost");
    SparkSession legacy = spark.newSession();   // as the job writes
    legacy.conf().set("spark.sql.parquet.writeLegacyFormat", "true");
    legacy.read().parquet(part.toString()).drop("pooled").coalesce(1).write()
        .parquet(lost.toString());
    try (java.util.stream.Stream<Path> files = Files.list(lost)) {
      Files.copy(files.filter(f -> f.getFileName().toString().endsWith(".parquet"))
          .findFirst().orElseThrow(), embeddings.resolve("part-99999-lost.parquet"));
    }
    Run damaged = run(v1, out, "update");
    assertEquals(1, damaged.exit);
    assertTrue(damaged.err.contains("the earlier output at " + out + " is damaged: in "
        + "embeddings/, part-99999-lost.parquet has no column pooled, which part-0"),
        damaged.err);
  }

  private static double[] toDouble(float[] v) {
    double[] out = new double[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = v[i];
    }
    return out;
  }
}
