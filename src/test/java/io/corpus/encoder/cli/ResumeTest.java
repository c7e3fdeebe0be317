package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.testing.ChildJvm;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.Slow;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.StagingPieces;
import io.corpus.encoder.testing.Tolerances;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job killed (SIGKILL, as a lost driver) after some pieces of its output were written, then
 * started again with the same settings, reuses those pieces, computes the rest, and commits an
 * output equal to an uninterrupted run's: every id once, the same vectors.
 */
@Slow
class ResumeTest {
  private static final Path ROOT = Path.of(System.getProperty("user.dir"));

  @TempDir
  Path tmp;

  private final SparkSession spark = SparkTestSession.get();

  /** The sample's texts: each job encodes them in twelve pieces. */
  private static final int TEXTS = 400;

  /** The 400 sample glosses and three rows without text, in one file of one row group. */
  private Path input() {
    Dataset<Row> texts = spark.read().parquet(ROOT.resolve("data-samples/texts.parquet")
        .toString()).select("id", "text");
    // three rows set aside (no text), so that rejects found again add up with the reused pieces
    Dataset<Row> all = texts.union(texts.limit(3).select(concat(col("id"), lit("#null")).as("id"),
        lit(null).cast("string").as("text")));
    Path path = tmp.resolve("texts.parquet");
    all.coalesce(1).write().parquet(path.toString());
    return path;
  }

  private Path config(String name, Path input, Path output, String... more) throws IOException {
    List<String> lines = new java.util.ArrayList<>(List.of(
        "input.path = \"" + input + "\"", "input.text-column = text",
        "model.path = \"" + SharedModels.miniLm() + "\"",
        "output.path = \"" + output + "\"", "output.mode = overwrite",
        "output.token-embeddings = false",
        // twelve pieces, whatever the estimate, so that the kill falls between them
        "execution.checkpoint-seconds = 1", "execution.min-partitions = 12"));
    lines.addAll(List.of(more));
    return JobRunner.config(tmp, name, lines.toArray(new String[0]));
  }

  /** Runs the job in a JVM of its own and kills it once {@code pieces} pieces are written. */
  private void killAfter(Path config, Path output, int pieces) throws Exception {
    killAfter(config, output, pieces, "embeddings");
  }

  /**
   * As {@link #killAfter(Path, Path, int)}, counting the pieces of the staged {@code table}. A
   * killed JVM cannot delete its temporary files (Spark's folders, the native libraries its
   * jars unpack), so the job's temporary folder is one of this test's own, deleted with it.
   */
  private void killAfter(Path config, Path output, int pieces, String table) throws Exception {
    Path temporary = Files.createDirectories(tmp.resolve("killed-jvm-tmp"));
    Process job = ChildJvm.builder(EncodeJob.class,
        List.of("@" + ROOT.resolve("jobs/jvm.options"), "-Xmx2g",
            "-Djava.io.tmpdir=" + temporary), "--config", config.toString())
        .redirectErrorStream(true).redirectOutput(tmp.resolve("killed.log").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (StagingPieces.committed(output, table) < pieces) {
      assertTrue(job.isAlive(), "the job ended before " + pieces + " pieces were written: "
          + Files.readString(tmp.resolve("killed.log")));
      assertTrue(System.nanoTime() < deadline, "no pieces after 3 minutes");
      Thread.sleep(10);
    }
    job.destroyForcibly();   // SIGKILL
    job.waitFor();
    try (Stream<Path> left = Files.list(temporary)) {
      assertTrue(left.anyMatch(p -> p.getFileName().toString().startsWith("spark-")),
          "Spark's folder of the killed job is in " + temporary);
    }
  }

  /** The outputs hold the same ids, each with the same pooled vector (to 1e-6 of cosine). */
  private void assertSameVectors(Path whole, Path output) {
    Map<String, double[]> expected = vectors(whole);
    Map<String, double[]> actual = vectors(output);
    assertEquals(expected.keySet(), actual.keySet());
    for (Map.Entry<String, double[]> e : expected.entrySet()) {
      double cosine = Tolerances.cosine(e.getValue(), actual.get(e.getKey()));
      assertTrue(1 - cosine < 1e-6, e.getKey() + ": 1 - cosine " + (1 - cosine));
    }
  }

  private Map<String, double[]> vectors(Path output) {
    Map<String, double[]> byId = new HashMap<>();
    for (Row row : spark.read().parquet(output.resolve("embeddings").toString())
        .select("id", "pooled").collectAsList()) {
      List<Float> v = row.getList(1);
      double[] values = new double[v.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = v.get(i);
      }
      assertEquals(null, byId.put(row.getString(0), values), "id twice: " + row.getString(0));
    }
    return byId;
  }

  @Test
  void aKilledJobStartedAgainReusesItsPiecesAndEqualsAnUninterruptedRun() throws Exception {
    Path input = input();
    Path whole = tmp.resolve("whole");
    assertEquals(0, JobRunner.runConfig(config("whole", input, whole)).code());
    Path output = tmp.resolve("out");
    Path resumed = config("resumed", input, output);
    killAfter(resumed, output, 3);

    JobRunner.Result again = JobRunner.runConfig(resumed);
    assertEquals(0, again.code(), again.error());
    RunSummary summary = RunSummary.read(output.resolve("run-summary.json"));
    assertTrue(summary.balanced());
    assertEquals(TEXTS, summary.rowsWritten());
    assertEquals(3, summary.rowsRejected());
    Map<String, Object> resume = summary.resume();
    assertNotNull(resume.get("resumed_from"), resume.toString());
    int pieces = (Integer) resume.get("pieces");
    int reused = (Integer) resume.get("pieces_reused");
    assertTrue(pieces >= 12 && reused >= 3 && reused < pieces, resume.toString());
    assertTrue(((Number) resume.get("rows_reused")).longValue() > 0, resume.toString());

    assertSameVectors(whole, output);
    try (Stream<Path> left = Files.list(tmp)) {
      assertEquals(List.of(), left.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith(".out.staging-")).toList(), "no staging folder left");
    }
  }

  /**
   * The input rewritten in place after the kill, keeping its size, time and footer bytes: texts
   * of equal length swapped between rows (a plain, uncompressed page; the column's statistics
   * and every size stay as they were). The identity the pieces were kept under cannot see it;
   * the rows can: the kept pieces holding a swapped row are computed again, and the output is
   * an uninterrupted run's over the rewritten input.
   */
  @Test
  void aKilledJobWhoseInputWasRewrittenKeepingItsFooterComputesTheChangedPiecesAgain()
      throws Exception {
    Path input = tmp.resolve("plain.parquet");
    spark.read().parquet(input().toString()).coalesce(1).write()
        .option("compression", "none").option("parquet.enable.dictionary", "false")
        .option("parquet.page.write-checksum.enabled", "false").parquet(input.toString());
    try (Stream<Path> sums = Files.list(input)) {   // as pandas or DuckDB write: no .crc files
      for (Path sum : sums.filter(f -> f.getFileName().toString().endsWith(".crc")).toList()) {
        Files.delete(sum);
      }
    }
    Path output = tmp.resolve("out-rewritten");
    Path resumed = config("resumed-rewritten", input, output);
    killAfter(resumed, output, 4);

    Path file;
    try (Stream<Path> files = Files.list(input)) {
      file = files.filter(f -> f.getFileName().toString().endsWith(".parquet")).findFirst()
          .orElseThrow();
    }
    byte[] before = Files.readAllBytes(file);
    java.nio.file.attribute.FileTime time = Files.getLastModifiedTime(file);
    int swapped = swapTextsOfEqualLength(file);
    Files.setLastModifiedTime(file, time);
    byte[] after = Files.readAllBytes(file);
    int footer = java.nio.ByteBuffer.wrap(after, after.length - 8, 4)
        .order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt() + 8;
    assertEquals(before.length, after.length);
    assertTrue(java.util.Arrays.equals(before, before.length - footer, before.length, after,
        after.length - footer, after.length), "the footer is as it was");
    assertTrue(swapped >= 40, swapped + " texts swapped");

    Path copy = tmp.resolve("rewritten-copy.parquet");
    Files.createDirectories(copy);
    Files.write(copy.resolve("part-0.parquet"), after);
    Path whole = tmp.resolve("whole-rewritten");
    assertEquals(0, JobRunner.runConfig(config("whole-rewritten", copy, whole)).code());
    JobRunner.Result again = JobRunner.runConfig(resumed);
    assertEquals(0, again.code(), again.error());
    RunSummary summary = RunSummary.read(output.resolve("run-summary.json"));
    assertTrue(summary.balanced());
    assertTrue(String.valueOf(summary.resume().get("note")).contains("computed again"),
        summary.resume().toString());
    assertSameVectors(whole, output);
  }

  /**
   * Swaps, in the file's bytes, pairs of texts of the same UTF-8 length, each found once in the
   * file (a plain page holds each as it is); returns how many texts moved.
   */
  private int swapTextsOfEqualLength(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    String latin = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
    Map<Integer, Integer> firstOfLength = new HashMap<>();
    int moved = 0;
    for (Row row : spark.read().parquet(file.toString()).select("text").collectAsList()) {
      if (row.isNullAt(0)) {
        continue;
      }
      byte[] text = row.getString(0).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      String key = new String(text, java.nio.charset.StandardCharsets.ISO_8859_1);
      int at = latin.indexOf(key);
      if (at < 0 || latin.indexOf(key, at + 1) >= 0) {
        continue;   // not found once: its bytes are not only its own
      }
      Integer other = firstOfLength.remove(text.length);
      if (other == null) {
        firstOfLength.put(text.length, at);
        continue;
      }
      byte[] held = java.util.Arrays.copyOfRange(bytes, other, other + text.length);
      if (java.util.Arrays.equals(held, text)) {
        continue;
      }
      System.arraycopy(text, 0, bytes, other, text.length);
      System.arraycopy(held, 0, bytes, at, text.length);
      moved += 2;
    }
    Files.write(file, bytes);
    return moved;
  }

  /**
   * With int8 calibrated on the corpus, the pieces are the float vectors': a job killed after
   * three of them, started again, reuses them, takes its ranges over every row and writes what
   * an uninterrupted run writes (values within 1 where a float lands on a rounding edge).
   */
  @Test
  void aKilledCalibratingJobResumesFromItsFloatPieces() throws Exception {
    Path input = input();
    Path whole = tmp.resolve("whole-int8");
    assertEquals(0, JobRunner.runConfig(config("whole-int8", input, whole,
        "output.quantize = int8")).code());
    Path output = tmp.resolve("out-int8");
    Path resumed = config("resumed-int8", input, output, "output.quantize = int8");
    killAfter(resumed, output, 3, QuantizeStep.FLOAT_TABLE);

    JobRunner.Result again = JobRunner.runConfig(resumed);
    assertEquals(0, again.code(), again.error());
    RunSummary summary = RunSummary.read(output.resolve("run-summary.json"));
    assertTrue(summary.balanced());
    assertEquals(TEXTS, summary.rowsWritten());
    assertTrue((Integer) summary.resume().get("pieces_reused") >= 3, summary.resume().toString());
    Map<String, double[]> expected = quantized(whole);
    Map<String, double[]> actual = quantized(output);
    assertEquals(expected.keySet(), actual.keySet());
    int differ = 0;
    for (Map.Entry<String, double[]> e : expected.entrySet()) {
      double[] got = actual.get(e.getKey());
      for (int i = 0; i < got.length; i++) {
        assertTrue(Math.abs(got[i] - e.getValue()[i]) <= 1, e.getKey() + " " + i);
        differ += got[i] != e.getValue()[i] ? 1 : 0;
      }
    }
    System.out.println("resumed int8: " + differ + " of " + TEXTS * 384 + " values differ by 1");
    assertTrue(!Files.exists(output.resolve(QuantizeStep.FLOAT_TABLE)), "no float table left");
  }

  private Map<String, double[]> quantized(Path output) {
    Map<String, double[]> byId = new HashMap<>();
    for (Row row : spark.read().parquet(output.resolve("embeddings").toString())
        .select("id", "pooled").collectAsList()) {
      List<Number> v = row.getList(1);
      byId.put(row.getString(0), v.stream().mapToDouble(Number::doubleValue).toArray());
    }
    return byId;
  }
}
