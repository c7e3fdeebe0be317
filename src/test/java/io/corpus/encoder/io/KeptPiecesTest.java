package io.corpus.encoder.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.SparkTestSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a run that took over a killed run's staging folder reuses of the pieces it kept: only
 * under the same identity, only files whose footer reads and holds rows, one per piece, and with
 * the killed run's piece count; anything else there is cleared.
 */
class KeptPiecesTest {
  private static final Configuration CONF = new Configuration();

  @TempDir
  Path dir;
  private Path tenRows;

  @BeforeEach
  void parquetFile() throws IOException {
    Path table = dir.resolve("ten");
    SparkTestSession.get().range(0, 10).coalesce(1).write().parquet(table.toString());
    try (Stream<Path> files = Files.list(table)) {
      tenRows = files.filter(f -> f.getFileName().toString().endsWith(".parquet"))
          .findFirst().orElseThrow();
    }
  }

  private static Map<String, Object> identity(long size) {
    return Map.of("input_files", List.of(Map.of("path", "in.parquet", "size", size)),
        "reuse_key", Map.of("normalize", true));
  }

  private Path stagingOf(OutputFolder out) {
    return Path.of(java.net.URI.create(out.staging()));
  }

  /** A run that wrote {@code files} into its table and was killed (its lock left behind). */
  private void killedRun(Path target, Map<String, Object> identity, String... files)
      throws IOException {
    OutputFolder out = reopen(target, true);
    KeptPieces.open(out, "embeddings", identity, 4, CONF);
    Path table = Files.createDirectories(stagingOf(out).resolve("embeddings"));
    for (String file : files) {
      if (file.startsWith("cut:")) {
        byte[] whole = Files.readAllBytes(tenRows);
        Files.write(table.resolve(file.substring(4)), Arrays.copyOf(whole, whole.length / 2));
      } else {
        Files.copy(tenRows, table.resolve(file));
      }
    }
    Files.createDirectories(table.resolve("_temporary/0/_temporary/attempt_1"));
    Files.writeString(stagingOf(out).resolve("run-summary.json"), "{}");
    out.close();   // unlocked, not aborted: the staging folder stays, as after a kill
  }

  /** The next run to {@code target}, which takes over the killed run's folder if it resumes. */
  private static OutputFolder reopen(Path target, boolean resume) {
    return OutputFolder.open(target.toString(), CONF, OutputFolder.Replace.EARLIER_OUTPUT,
        resume);
  }

  private record Reopened(OutputFolder out, KeptPieces kept) {}

  /**
   * A run killed after one piece under identity(100), then the next run, which asks for 7
   * pieces under {@code identity}.
   */
  private Reopened afterKillWithOnePiece(Map<String, Object> identity, boolean resume)
      throws IOException {
    Path target = dir.resolve("out");
    killedRun(target, identity(100), "part-00000-a-c000.snappy.parquet");
    OutputFolder out = reopen(target, resume);
    return new Reopened(out, KeptPieces.open(out, "embeddings", identity, 7, CONF));
  }

  /** The names in a folder, Hadoop's checksum files left out. */
  private static String[] names(Path folder) throws IOException {
    try (Stream<Path> files = Files.list(folder)) {
      return files.map(f -> f.getFileName().toString()).filter(n -> !n.endsWith(".crc"))
          .sorted().toArray(String[]::new);
    }
  }

  @Test
  void sameIdentityReusesEachPieceWhoseFileReadsOnceAndKeepsTheKilledRunsCount()
      throws IOException {
    Path target = dir.resolve("out");
    killedRun(target, identity(100), "part-00000-a-c000.snappy.parquet",
        "cut:part-00001-a-c000.snappy.parquet", "part-00002-a-c000.snappy.parquet",
        "part-00002-b-c000.snappy.parquet", "part-00009-a-c000.snappy.parquet");

    OutputFolder out = reopen(target, true);
    // the killed run's id, not its folder's name, which holds the output's
    assertTrue(out.resumedFrom().matches("[0-9a-f-]{36}"), out.resumedFrom());
    KeptPieces kept = KeptPieces.open(out, "embeddings", identity(100), 7, CONF);
    assertEquals(4, kept.pieces(), "the killed run's count, so that pieces stay the same rows");
    assertEquals(Set.of(0, 2), kept.done());
    assertEquals(20, kept.rows());
    assertEquals("resuming: 2 of 4 pieces (20 rows) kept by run " + out.resumedFrom()
        + " are reused", kept.note());
    List<String> left = List.of(names(stagingOf(out).resolve("embeddings")));
    assertEquals(2, left.stream().filter(n -> n.endsWith(".parquet")).count(), left.toString());
    assertFalse(left.contains("part-00001-a-c000.snappy.parquet"), "the cut file is gone");
    assertFalse(left.contains("part-00009-a-c000.snappy.parquet"), "no such piece");
    assertFalse(left.contains("_temporary"), left.toString());
    assertEquals(List.of("embeddings", OutputFolder.RESUME_PLAN),
        List.of(names(stagingOf(out))), "the killed run's summary is cleared");
    out.abort();
  }

  @Test
  void anotherIdentityReusesNothingAndSaysWhatDiffers() throws IOException {
    Reopened run = afterKillWithOnePiece(identity(101), true);
    OutputFolder out = run.out();
    KeptPieces kept = run.kept();
    assertEquals(7, kept.pieces());
    assertEquals(Set.of(), kept.done());
    assertTrue(kept.note().endsWith(
        "kept are not reused: input_files[0].size = 100 (this run: 101)"), kept.note());
    assertEquals(List.of(OutputFolder.RESUME_PLAN), List.of(names(stagingOf(out))));
    out.abort();
  }

  @Test
  void withoutResumeTheKilledRunsStagingFolderIsRemoved() throws IOException {
    Reopened run = afterKillWithOnePiece(identity(100), false);
    OutputFolder out = run.out();
    assertNull(out.resumedFrom());
    KeptPieces kept = run.kept();
    assertEquals(Set.of(), kept.done());
    assertNull(kept.note());
    try (Stream<Path> siblings = Files.list(dir)) {
      assertEquals(1, siblings.filter(p -> p.getFileName().toString()
          .startsWith(".out.staging-")).count(), "only this run's");
    }
    out.abort();
  }
}
