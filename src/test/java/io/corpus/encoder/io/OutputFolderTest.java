package io.corpus.encoder.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.Slow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class OutputFolderTest {
  @TempDir Path dir;

  /** An output as the job writes one: a table file and a summary, each naming its version. */
  static void writeOutput(Path folder, String version) throws IOException {
    Files.createDirectories(folder.resolve("embeddings"));
    Files.writeString(folder.resolve("embeddings/part-00000.parquet"), version);
    Files.writeString(folder.resolve("run-summary.json"), summary(version));
  }

  /** A run summary with the fields the job always writes, and a version. */
  static String summary(String version) {
    return "{\"rows_read\": 1, \"rows_written\": 1, \"rows_rejected\": 0, \"model\": {}, "
        + "\"outputs\": {}, \"reuse_key\": {}, \"version\": \"" + version + "\"}";
  }

  /** "old" or "new" when the folder holds that output whole, else what it holds. */
  static String versionOf(Path folder) throws IOException {
    if (!Files.isDirectory(folder)) {
      return "missing";
    }
    String table = Files.readString(folder.resolve("embeddings/part-00000.parquet"));
    String summary = Files.readString(folder.resolve("run-summary.json"));
    return summary.equals(summary(table)) ? table : "torn: " + table;
  }

  private Path oldOutputWithNeighbour() throws IOException {
    Path target = dir.resolve("out");
    writeOutput(target, "old");
    Files.writeString(target.resolve(OutputFolder.MARKER), "earlier output");
    Files.writeString(dir.resolve("notes.txt"), "not the job's");
    return target;
  }

  private OutputFolder open(Path target, OutputFolder.Replace replace) {
    return OutputFolder.open(target.toString(), new Configuration(), replace);
  }

  /** What is left beside the output: the neighbour, and nothing of the job's own. */
  private List<String> leftBeside() throws IOException {
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.map(p -> p.getFileName().toString()).filter(n -> !n.equals("out"))
          .sorted().toList();
    }
  }

  @Test
  void commitReplacesAnEarlierOutputAndMarksTheNewOne() throws IOException {
    Path target = oldOutputWithNeighbour();
    OutputFolder out = open(target, OutputFolder.Replace.EARLIER_OUTPUT);
    writeOutput(Path.of(java.net.URI.create(out.staging())), "new");
    out.commit();
    assertEquals("new", versionOf(target));
    assertTrue(Files.exists(target.resolve(OutputFolder.MARKER)));
    assertEquals(List.of("notes.txt"), leftBeside());
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"données", "日本", "a b%20c"})
  void commitsToAPathOfAnyCharacters(String name) throws IOException {
    Path target = dir.resolve(name);
    OutputFolder out = open(target, OutputFolder.Replace.EARLIER_OUTPUT);
    writeOutput(Path.of(new org.apache.hadoop.fs.Path(out.staging()).toUri().getPath()), "old");
    out.commit();
    assertEquals("old", versionOf(target));
    OutputFolder again = open(target, OutputFolder.Replace.EARLIER_OUTPUT);
    writeOutput(Path.of(new org.apache.hadoop.fs.Path(again.staging()).toUri().getPath()), "new");
    again.commit();
    assertEquals("new", versionOf(target));
    assertTrue(Files.exists(target.resolve(OutputFolder.MARKER)));
    assertEquals(List.of(name), leftBeside().stream().filter(n -> !n.equals("out")).toList());
  }

  @Test
  void overwriteRefusesAFolderTheJobDidNotWrite() throws IOException {
    Path target = dir.resolve("home-like");
    Files.createDirectories(target.resolve(".ssh"));
    Files.writeString(target.resolve(".ssh/authorized_keys"), "ssh-ed25519 AAAA");
    Files.writeString(target.resolve("notes.txt"), "mine");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> open(target, OutputFolder.Replace.EARLIER_OUTPUT));
    assertTrue(e.getMessage().contains("is a folder this job did not write"), e.getMessage());
    assertTrue(e.getMessage().contains("(it holds .ssh, notes.txt)"), e.getMessage());
    assertTrue(e.getMessage().contains("replace-any-folder"), e.getMessage());
    assertTrue(Files.exists(target.resolve(".ssh/authorized_keys")));
    // Refused: the lock is not left behind, so a corrected run can go ahead.
    assertFalse(Files.exists(dir.resolve(".home-like.lock")));
  }

  @Test
  void overwriteRefusesFoldersThatOnlyLookLikeAnOutput() throws IOException {
    Map<String, String> reasons = new LinkedHashMap<>();
    Path fakeSummary = dir.resolve("fake-summary");
    writeOutput(fakeSummary, "old");
    Files.writeString(fakeSummary.resolve("embeddings/my-precious.parquet"), "mine");
    Files.writeString(fakeSummary.resolve("run-summary.json"), "{\"note\":\"mine\"}");
    reasons.put("fake-summary", "its run-summary.json is not one this job writes (no "
        + "rows_read, rows_rejected, rows_written, model, outputs, reuse_key)");
    Path marked = dir.resolve("marked");
    writeOutput(marked, "old");
    Files.writeString(marked.resolve(OutputFolder.MARKER), "anyone can write this");
    Files.writeString(marked.resolve("run-summary.json"), "[1, 2]");
    reasons.put("marked", "its run-summary.json is not a JSON object");
    Path strangeTable = dir.resolve("strange-table");
    writeOutput(strangeTable, "old");
    Files.writeString(strangeTable.resolve("embeddings/my-precious.parquet"), "mine");
    reasons.put("strange-table", "it holds embeddings/my-precious.parquet, which the job does "
        + "not write");
    Path strangeReport = dir.resolve("strange-report");
    writeOutput(strangeReport, "old");
    Files.createDirectories(strangeReport.resolve("report/drafts"));
    reasons.put("strange-report", "it holds report/drafts/, which the job does not write");
    Path strangePartition = dir.resolve("strange-partition");
    writeOutput(strangePartition, "old");
    Files.createDirectories(strangePartition.resolve("attention/layer=0"));
    Files.writeString(strangePartition.resolve("attention/layer=0/thesis.tex"), "mine");
    reasons.put("strange-partition", "it holds attention/layer=0/thesis.tex, which the job does "
        + "not write");
    Path noSummary = dir.resolve("no-summary");
    writeOutput(noSummary, "old");
    Files.delete(noSummary.resolve("run-summary.json"));
    reasons.put("no-summary", "it has no run-summary.json; it holds embeddings");
    for (Map.Entry<String, String> c : reasons.entrySet()) {
      Path target = dir.resolve(c.getKey());
      Map<Path, String> before = contents(target);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> open(target, OutputFolder.Replace.EARLIER_OUTPUT), c.getKey());
      assertTrue(e.getMessage().contains("is a folder this job did not write (" + c.getValue()
          + ")"), e.getMessage());
      assertEquals(before, contents(target), c.getKey());
    }
  }

  private static Map<Path, String> contents(Path root) throws IOException {
    Map<Path, String> all = new java.util.TreeMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.toList()) {
        all.put(root.relativize(f), Files.isRegularFile(f) ? Files.readString(f) : "/");
      }
    }
    return all;
  }

  @Test
  void overwriteTakesAnEmptyFolderAndAnOutputFromBeforeTheMarker() throws IOException {
    Path empty = dir.resolve("empty");
    Files.createDirectories(empty);
    open(empty, OutputFolder.Replace.EARLIER_OUTPUT).close();
    Path legacy = dir.resolve("legacy");
    writeOutput(legacy, "old");
    Files.createDirectories(legacy.resolve("rejects"));
    open(legacy, OutputFolder.Replace.EARLIER_OUTPUT).close();
    Files.writeString(legacy.resolve("notes.txt"), "mine");
    assertThrows(IllegalArgumentException.class,
        () -> open(legacy, OutputFolder.Replace.EARLIER_OUTPUT));
  }

  @Test
  void replaceAnyFolderReplacesAnUnmarkedFolderButNeverAFile() throws IOException {
    Path target = dir.resolve("any");
    Files.createDirectories(target);
    Files.writeString(target.resolve("notes.txt"), "mine");
    OutputFolder out = open(target, OutputFolder.Replace.ANY_FOLDER);
    writeOutput(Path.of(java.net.URI.create(out.staging())), "new");
    out.commit();
    assertEquals("new", versionOf(target));
    Path file = dir.resolve("file.parquet");
    Files.writeString(file, "data");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> open(file, OutputFolder.Replace.ANY_FOLDER));
    assertTrue(e.getMessage().contains("is a file, not a folder"), e.getMessage());
  }

  @Test
  void errorIfExistsRefusesAnyExistingPath() throws IOException {
    Path target = oldOutputWithNeighbour();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> open(target, OutputFolder.Replace.NOTHING));
    assertTrue(e.getMessage().contains("exists; set output.mode = overwrite"), e.getMessage());
  }

  @Test
  void aSecondWriterIsRefusedNamingTheFirst() throws IOException {
    Path target = oldOutputWithNeighbour();
    try (OutputFolder first = open(target, OutputFolder.Replace.EARLIER_OUTPUT)) {
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> open(target, OutputFolder.Replace.EARLIER_OUTPUT));
      assertTrue(e.getMessage().contains("is being written by run "), e.getMessage());
      assertTrue(e.getMessage().contains("of process " + ProcessHandle.current().pid()),
          e.getMessage());
      // The second writer must not have cleared the first one's staging folder.
      writeOutput(Path.of(java.net.URI.create(first.staging())), "new");
      first.commit();
    }
    assertEquals("new", versionOf(target));
  }

  @Test
  void aLockOfADeadProcessIsTakenOverAndOneFromAnotherHostIsNot() throws Exception {
    Path target = oldOutputWithNeighbour();
    Path lock = dir.resolve(".out.lock");
    long deadPid = deadProcessId();
    Files.writeString(lock, new OutputLock.Holder(localHost(), deadPid, "", "dead-run").line());
    open(target, OutputFolder.Replace.EARLIER_OUTPUT).close();
    assertFalse(Files.exists(lock));

    Files.writeString(lock, new OutputLock.Holder("elsewhere.example", deadPid, "", "far-run")
        .line());
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> open(target, OutputFolder.Replace.EARLIER_OUTPUT));
    assertTrue(e.getMessage().contains("run far-run of process " + deadPid
        + " on elsewhere.example"), e.getMessage());
    assertTrue(Files.exists(lock));
  }

  @Test
  void cleanUpRemovesOnlyDeadRunsStagingAndPutsBackAnOutputLeftAside() throws IOException {
    Path target = dir.resolve("out");
    writeOutput(dir.resolve(".out.previous-killed"), "old");   // a commit killed halfway
    writeOutput(dir.resolve(".out.staging-killed"), "new");
    Files.writeString(dir.resolve("notes.txt"), "not the job's");
    Files.createDirectories(dir.resolve(".outer.staging-x"));  // another output's staging
    open(target, OutputFolder.Replace.EARLIER_OUTPUT).close();
    assertEquals("old", versionOf(target));
    assertEquals(List.of(".outer.staging-x", "notes.txt"), leftBeside());
  }

  /** A fault at each commit step: the job fails, and the output is the old one or the new. */
  @ParameterizedTest
  @EnumSource(OutputFolder.CommitStep.class)
  void aFailureAtAnyCommitStepLeavesTheOldOutputOrTheNew(OutputFolder.CommitStep fault)
      throws IOException {
    for (boolean exchange : new boolean[] {true, false}) {
      Path target = oldOutputWithNeighbour();
      OutputFolder out = open(target, OutputFolder.Replace.EARLIER_OUTPUT);
      if (!exchange) {
        out.withoutExchange();
      }
      writeOutput(Path.of(java.net.URI.create(out.staging())), "new");
      out.beforeEachStep(step -> {
        if (step == fault) {
          throw new IllegalStateException("injected at " + step);
        }
      });
      assertThrows(IllegalStateException.class, out::commit);
      out.abort();
      String version = versionOf(target);
      assertTrue(version.equals("old") || version.equals("new"), fault + ": " + version);
      assertEquals(List.of("notes.txt"), leftBeside(), fault + " exchange " + exchange);
      deleteTree(target);
      Files.delete(dir.resolve("notes.txt"));
    }
  }

  /**
   * kill -9 before each commit step, in a JVM of its own: with the local exchange the output
   * path holds the old output or the new one, whole, at once; with two renames (as on HDFS) the
   * next run to the path puts the old one back. Either way the next run finds a whole output and
   * leaves nothing of the killed run behind, and the neighbour is untouched.
   */
  @Slow
  @ParameterizedTest
  @EnumSource(OutputFolder.CommitStep.class)
  void aKillAtAnyCommitStepNeverLosesBothOutputs(OutputFolder.CommitStep kill) throws Exception {
    for (String swap : List.of("exchange", "renames")) {
      Path target = oldOutputWithNeighbour();
      int exit = runProbe(target, kill, swap);
      assertEquals(137, exit, "the probe was to be killed before " + kill);
      String atOnce = versionOf(target);
      if (swap.equals("exchange") || kill != OutputFolder.CommitStep.SWAP_HALFWAY) {
        assertTrue(atOnce.equals("old") || atOnce.equals("new"), kill + " " + swap + ": "
            + atOnce);
      } else {
        assertEquals("missing", atOnce);
        assertTrue(leftBeside().stream().anyMatch(n -> n.startsWith(".out.previous-")),
            leftBeside().toString());
      }
      open(target, OutputFolder.Replace.EARLIER_OUTPUT).close();   // the next run
      String after = versionOf(target);
      assertTrue(after.equals("old") || after.equals("new"), kill + " " + swap + ": " + after);
      if (!atOnce.equals("missing")) {
        assertEquals(atOnce, after);
      }
      assertEquals(List.of("notes.txt"), leftBeside(), kill + " " + swap);
      deleteTree(target);
      Files.delete(dir.resolve("notes.txt"));
    }
  }

  private int runProbe(Path target, OutputFolder.CommitStep kill, String swap) throws Exception {
    // a short-lived JVM: the client compiler only, and no collector threads to start
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
        System.getProperty("java.class.path"),
        CommitKillProbe.class.getName(), target.toString(), kill.name(), swap)
        .redirectErrorStream(true).redirectOutput(dir.resolve("probe.log").toFile()).start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe did not finish");
    Files.delete(dir.resolve("probe.log"));
    return p.exitValue();
  }

  private static long deadProcessId() throws Exception {
    Process p = new ProcessBuilder("true").start();
    p.waitFor();
    return p.pid();
  }

  private static String localHost() throws IOException {
    return java.net.InetAddress.getLocalHost().getHostName();
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted((a, b) -> b.compareTo(a)).toList()) {
        Files.delete(p);
      }
    }
  }
}
