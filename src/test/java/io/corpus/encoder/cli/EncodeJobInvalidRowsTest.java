package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table mixing good rows with every kind of bad row, through the job: under quarantine each bad
 * row lands in rejects/ with its reason, good rows are unchanged and the counts add up; under fail
 * the job stops naming the first bad row and leaves no output.
 */
class EncodeJobInvalidRowsTest {
  private static final int WIDTH = 32;
  private static final StructType SCHEMA = new StructType()
      .add("id", DataTypes.StringType)
      .add("embeddings", DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType)))
      .add("mask", DataTypes.createArrayType(DataTypes.IntegerType));

  @TempDir
  Path tmp;

  private final GoldenCase golden = GoldenCase.named("seed-shapes");

  /** Every bad row kind: id, the rule it breaks, and the reason expected. */
  private static List<Object[]> badRows() {
    List<Object[]> bad = new ArrayList<>();
    bad.add(new Object[] {row(null, tokens(3, WIDTH), ones(3)), "null-id", "null-id: id is null"});
    bad.add(new Object[] {row("b-null", null, null), "null-embeddings",
        "null-embeddings: embeddings are null"});
    bad.add(new Object[] {row("b-empty", List.of(), List.of()), "empty-embeddings",
        "empty-embeddings: embeddings hold no token"});
    List<Object> nullToken = new ArrayList<>(tokens(4, WIDTH));
    nullToken.set(2, null);
    bad.add(new Object[] {row("b-null-token", nullToken, ones(4)), "null-token",
        "null-token: token 2 is null"});
    List<Object> ragged = new ArrayList<>(tokens(5, WIDTH));
    ragged.set(3, vector(WIDTH - 1, 0.5f));
    bad.add(new Object[] {row("b-ragged", ragged, ones(5)), "wrong-width",
        "wrong-width: token 3 has 31 values, expected 32"});
    List<Object> nan = new ArrayList<>(tokens(3, WIDTH));
    List<Float> nanVector = new ArrayList<>(vector(WIDTH, 0.1f));
    nanVector.set(7, Float.NaN);
    nan.set(1, nanVector);
    bad.add(new Object[] {row("b-nan", nan, ones(3)), "non-finite",
        "non-finite: token 1 index 7 is NaN"});
    List<Object> inf = new ArrayList<>(tokens(3, WIDTH));
    List<Float> infVector = new ArrayList<>(vector(WIDTH, 0.1f));
    infVector.set(0, Float.POSITIVE_INFINITY);
    inf.set(2, infVector);
    bad.add(new Object[] {row("b-inf", inf, ones(3)), "non-finite",
        "non-finite: token 2 index 0 is Infinity"});
    bad.add(new Object[] {row("b-long", tokens(21, WIDTH), ones(21)), "too-long",
        "too-long: sequence has 21 tokens, more than the 20 allowed by maxLength"});
    bad.add(new Object[] {row("b-mask-length", tokens(4, WIDTH), ones(3)), "bad-mask",
        "bad-mask: mask has 3 entries, embeddings have 4 tokens"});
    bad.add(new Object[] {row("b-all-padding", tokens(3, WIDTH), List.of(0, 0, 0)),
        "no-real-token", "no-real-token: mask marks all 3 tokens as padding"});
    bad.add(new Object[] {row("b-mask-value", tokens(3, WIDTH), List.of(1, 2, 1)), "bad-mask",
        "bad-mask: mask entry 1 is 2, expected 1 or 0"});
    return bad;
  }

  @Test
  void quarantineSetsBadRowsAsideAndLeavesGoodRowsUnchanged() throws Exception {
    SparkSession spark = SparkTestSession.get();
    List<Row> good = goodRows();
    List<Object[]> bad = badRows();
    List<Row> mixed = new ArrayList<>(good);
    bad.forEach(b -> mixed.add((Row) b[0]));
    Collections.shuffle(mixed, new Random(3));

    Path cleanOut = runJob(spark, good, "clean", "quarantine", 0);
    Path mixedOut = runJob(spark, mixed, "mixed", "quarantine", 0);

    Map<String, double[][]> clean = embeddings(spark, cleanOut);
    Map<String, double[][]> withBad = embeddings(spark, mixedOut);
    assertEquals(clean.keySet(), withBad.keySet());
    for (String id : clean.keySet()) {
      double[][] a = clean.get(id);
      double[][] b = withBad.get(id);
      for (int t = 0; t < a.length; t++) {
        for (int e = 0; e < a[t].length; e++) {
          assertEquals(a[t][e], b[t][e], 1e-6, id + " token " + t);
        }
      }
    }

    Map<String, String> reasons = new HashMap<>();
    List<Row> rejects = spark.read().parquet(mixedOut.resolve("rejects").toString())
        .collectAsList();
    for (Row r : rejects) {
      reasons.put(String.valueOf((Object) r.getAs("id")), r.getAs("reject_reason"));
      assertTrue(Arrays.asList(r.schema().fieldNames()).containsAll(
          List.of("id", "embeddings", "mask", "reject_rule", "reject_reason")));
    }
    assertEquals(bad.size(), rejects.size());
    // A run with nothing to set aside still leaves a rejects table, empty, with the same columns.
    Dataset<Row> noRejects = spark.read().parquet(cleanOut.resolve("rejects").toString());
    assertEquals(0, noRejects.count());
    assertEquals(spark.read().parquet(mixedOut.resolve("rejects").toString()).schema(),
        noRejects.schema());
    for (Object[] b : bad) {
      Row row = (Row) b[0];
      assertEquals(b[2], reasons.get(String.valueOf(row.get(0))), "reason of " + row.get(0));
    }

    RunSummary summary = RunSummary.read(mixedOut.resolve("run-summary.json"));
    assertEquals(mixed.size(), summary.rowsRead());
    assertEquals(good.size(), summary.rowsWritten());
    assertEquals(bad.size(), summary.rowsRejected());
    assertEquals(2L, summary.rejectedByRule().get("non-finite"));
    assertEquals(2L, summary.rejectedByRule().get("bad-mask"));
    assertEquals(1L, summary.rejectedByRule().get("wrong-width"));
    assertTrue(summary.balanced());
  }

  @Test
  void failStopsAtTheFirstBadRowAndLeavesNoOutput() throws Exception {
    SparkSession spark = SparkTestSession.get();
    List<Row> rows = new ArrayList<>(goodRows());
    rows.add(3, (Row) badRows().get(4)[0]);   // the ragged row
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Path out = tmp.resolve("failed");
    int code = run(spark, rows, out, "fail", 0, err);
    assertNotEquals(0, code);
    assertEquals("error: Invalid input row id=b-ragged: wrong-width: token 3 has 31 values, "
        + "expected 32", err.toString(StandardCharsets.UTF_8).strip());
    assertFalse(Files.exists(out), "no output table is left behind");
    try (var siblings = Files.list(tmp)) {
      assertTrue(siblings.noneMatch(p -> p.getFileName().toString().contains("staging")));
    }
  }

  @Test
  void existingOutputIsProtectedUnderErrorIfExists() throws Exception {
    SparkSession spark = SparkTestSession.get();
    Path out = tmp.resolve("kept");
    Files.createDirectories(out);
    Files.writeString(out.resolve("marker"), "earlier results");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = run(spark, goodRows(), out, "quarantine", 0, err, "error-if-exists");
    assertNotEquals(0, code);
    assertEquals("error: Output path " + out + " exists; set output.mode = overwrite to "
        + "replace it", err.toString(StandardCharsets.UTF_8).strip());
    assertEquals("earlier results", Files.readString(out.resolve("marker")));
  }

  private Path runJob(SparkSession spark, List<Row> rows, String name, String onInvalid,
      int unused) throws Exception {
    Path out = tmp.resolve(name);
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertEquals(0, run(spark, rows, out, onInvalid, unused, err),
        err.toString(StandardCharsets.UTF_8));
    return out;
  }

  private int run(SparkSession spark, List<Row> rows, Path out, String onInvalid, int unused,
      ByteArrayOutputStream err) throws Exception {
    return run(spark, rows, out, onInvalid, unused, err, "overwrite");
  }

  private int run(SparkSession spark, List<Row> rows, Path out, String onInvalid, int unused,
      ByteArrayOutputStream err, String mode) throws Exception {
    Path input = tmp.resolve(out.getFileName() + "-input.parquet");
    spark.createDataFrame(rows, SCHEMA).repartition(3).write().mode("overwrite")
        .parquet(input.toString());
    Path config = tmp.resolve(out.getFileName() + ".conf");
    Files.writeString(config, String.join("\n",
        "input { path = \"" + input + "\", mask-column = mask, max-length = 20,",
        "  on-invalid = " + onInvalid + " }",
        "model { weights = \"" + golden.weights() + "\", heads = " + golden.heads() + " }",
        "output { path = \"" + out + "\", mode = " + mode + " }",
        "execution { progress = false, batch-tokens = 24 }"));
    return new EncodeCommand(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString()});
  }

  private static Map<String, double[][]> embeddings(SparkSession spark, Path out) {
    Map<String, double[][]> byId = new HashMap<>();
    for (Row r : spark.read().parquet(out.resolve("embeddings").toString()).collectAsList()) {
      byId.put(r.getAs("id"), SparkInputs.matrix(r.getAs("embeddings")));
    }
    return byId;
  }

  private List<Row> goodRows() {
    List<Row> rows = new ArrayList<>();
    for (GoldenCase.InputRow in : golden.inputs()) {
      List<Object> tokens = SparkInputs.tokenLists(in.embeddings());
      rows.add(row(in.id(), tokens, ones(tokens.size())));
    }
    return rows;
  }

  private static Row row(String id, List<?> embeddings, List<Integer> mask) {
    return RowFactory.create(id, embeddings, mask);
  }

  private static List<Object> tokens(int count, int width) {
    List<Object> out = new ArrayList<>();
    for (int t = 0; t < count; t++) {
      out.add(vector(width, 0.01f * t));
    }
    return out;
  }

  private static List<Float> vector(int width, float value) {
    List<Float> v = new ArrayList<>();
    for (int i = 0; i < width; i++) {
      v.add(value + i * 0.001f);
    }
    return v;
  }

  private static List<Integer> ones(int count) {
    return new ArrayList<>(Collections.nCopies(count, 1));
  }
}
