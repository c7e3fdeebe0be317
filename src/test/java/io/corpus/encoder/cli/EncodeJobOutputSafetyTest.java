package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.io.OutputFolder;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.GoldenJobs;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * What the job may replace, through its command line: never what it reads, nor a folder it did
 * not write; two jobs on one output path: one writes, the other refuses; the caller's session is
 * left as it was, even while a job runs, and its own settings reach the job. Isolated: it counts
 * the listeners of the shared context, which the jobs of a class beside it would add to.
 */
@Isolated
class EncodeJobOutputSafetyTest {
  @TempDir
  Path tmp;

  private final GoldenCase golden = GoldenCase.named("seed-shapes");

  /** Input at {@code tmp/data/input.parquet}; a config writing to {@code output}. */
  private Path config(Path output, String mode) throws Exception {
    SparkSession spark = SparkTestSession.get();
    Path data = tmp.resolve("data");
    Files.createDirectories(data);
    Path input = data.resolve("input.parquet");
    if (!Files.exists(input)) {
      Files.move(SparkInputs.parquet(spark, golden, tmp), input);
    }
    Path config = GoldenJobs.writeConfig(golden, input, output, tmp);
    Files.writeString(config, Files.readString(config) + "\noutput.mode = " + mode + "\n");
    return config;
  }

  private static Result run(Path config) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = new EncodeCommand(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString()});
    return new Result(code, err.toString(StandardCharsets.UTF_8).strip());
  }

  /**
   * Paths in the forms Hadoop prints ({@code file:/abs}) and any characters: the data goes where
   * the path says, and an overwrite of a:b finds its own output and lock again.
   */
  @Test
  void pathsInEveryFormHadoopPrintsGoWhereTheySay() throws Exception {
    Path base = config(tmp.resolve("unused"), "overwrite");
    Path input = tmp.resolve("data/input.parquet");
    Map<String, Path> forms = new java.util.LinkedHashMap<>();
    forms.put("\"file:" + tmp.resolve("uri") + "\"", tmp.resolve("uri"));
    forms.put("\"a:b\"", tmp.resolve("a:b"));
    forms.put("\"/" + tmp.resolve("doubled") + "\"", tmp.resolve("doubled"));
    for (Map.Entry<String, Path> form : forms.entrySet()) {
      Path config = tmp.resolve("form.conf");
      Files.writeString(config, Files.readString(base) + "\ninput.path = \"file:" + input
          + "\"\noutput.path = " + form.getKey() + "\n");
      for (int run = 0; run < 2; run++) {
        Result result = run(config);
        assertEquals(0, result.code(), form.getKey() + ": " + result.error());
      }
      GoldenJobs.assertOutputMatches(SparkTestSession.get(), golden, form.getValue());
    }
    try (java.util.stream.Stream<Path> left = Files.list(tmp)) {
      List<String> names = left.map(p -> p.getFileName().toString()).sorted().toList();
      assertEquals(List.of("a:b", "data", "doubled", "form.conf", "uri"),
          names.stream().filter(n -> !n.endsWith(".conf") || n.equals("form.conf"))
              .filter(n -> !n.startsWith("golden") && !n.endsWith(".parquet")).toList(),
          "nothing else beside the outputs: " + names);
    }
  }

  private record Result(int code, String error) {}

  @Test
  void overwriteNeverReplacesTheFolderHoldingTheInput() throws Exception {
    Path data = tmp.resolve("data");
    Path config = config(data, "replace-any-folder");
    Files.writeString(data.resolve("notes.txt"), "not the job's");
    Result result = run(config);
    assertEquals(1, result.code());
    assertEquals("error: output.path " + data + " holds input.path " + data.resolve(
        "input.parquet") + ": the output must be a folder apart from what the job reads",
        result.error());
    assertTrue(Files.exists(data.resolve("input.parquet")));
    assertEquals("not the job's", Files.readString(data.resolve("notes.txt")));
  }

  @Test
  void overwriteRefusesAFolderItDidNotWriteAndReplacesItsOwn() throws Exception {
    Path home = tmp.resolve("someone");
    Files.createDirectories(home.resolve(".ssh"));
    Files.writeString(home.resolve(".ssh/authorized_keys"), "ssh-ed25519 AAAA");
    Result refused = run(config(home, "overwrite"));
    assertEquals(1, refused.code());
    assertTrue(refused.error().startsWith("error: Output path " + home + " is a folder this job "
        + "did not write (it holds .ssh)"), refused.error());
    assertEquals("ssh-ed25519 AAAA", Files.readString(home.resolve(".ssh/authorized_keys")));

    Path out = tmp.resolve("vectors");
    Path config = config(out, "overwrite");
    assertEquals(0, run(config).code());
    assertTrue(Files.exists(out.resolve(OutputFolder.MARKER)));
    Result again = run(config);
    assertEquals(0, again.code(), again.error());
    GoldenJobs.assertOutputMatches(SparkTestSession.get(), golden, out);
  }

  @Test
  void twoJobsOnOneOutputPathOneWritesTheOtherRefuses() throws Exception {
    SparkSession spark = SparkTestSession.get();
    Path out = tmp.resolve("shared-out");
    Path config = config(out, "overwrite");
    int listeners = spark.sparkContext().listenerBus().listeners().size();
    String minPartitions = spark.conf().getOption("spark.sql.files.minPartitionNum").toString();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<Future<Result>> runs = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      runs.add(pool.submit(() -> {
        start.await();
        return run(config);
      }));
    }
    start.countDown();
    List<Result> results = new ArrayList<>();
    for (Future<Result> r : runs) {
      results.add(r.get());
    }
    pool.shutdown();
    results.sort((a, b) -> Integer.compare(a.code(), b.code()));
    assertEquals(0, results.get(0).code(), results.get(0).error());
    assertEquals(1, results.get(1).code());
    assertTrue(results.get(1).error().contains(" is being written by run "),
        results.get(1).error());
    GoldenJobs.assertOutputMatches(spark, golden, out);
    try (var siblings = Files.list(tmp)) {
      assertTrue(siblings.noneMatch(p -> p.getFileName().toString().startsWith(".shared-out")),
          "no lock or staging folder left");
    }
    // The session is as the jobs found it: no listener of theirs, no setting of theirs.
    assertEquals(listeners, spark.sparkContext().listenerBus().listeners().size());
    assertEquals(minPartitions,
        spark.conf().getOption("spark.sql.files.minPartitionNum").toString());
  }

  /**
   * A job runs on a session of its own: the caller's run-time SQL settings reach it (here its
   * Parquet codec), and its own (the list layout it writes, its input splits) are never set on
   * the caller's session, not even while it runs, so another job or a notebook's query beside it
   * reads and writes as it was told to. The caller's session is this thread's active one (as a
   * notebook's is), a session of the shared context with settings of its own.
   */
  @Test
  void theCallersSettingsReachTheJobAndTheJobsOwnStayInItsSession() throws Exception {
    SparkSession spark = SparkTestSession.get().newSession();
    Path out = tmp.resolve("gzip-out");
    Path config = config(out, "overwrite");
    String legacy = "spark.sql.parquet.writeLegacyFormat";
    String before = spark.conf().getOption(legacy).toString();
    List<String> seenByCaller = new java.util.concurrent.CopyOnWriteArrayList<>();
    SparkListener watcher = new SparkListener() {
      @Override
      public void onJobStart(SparkListenerJobStart start) {
        seenByCaller.add(spark.conf().getOption(legacy).toString());
      }
    };
    spark.conf().set("spark.sql.parquet.compression.codec", "gzip");
    scala.Option<SparkSession> active = SparkSession.getActiveSession();
    SparkSession.setActiveSession(spark);
    spark.sparkContext().addSparkListener(watcher);
    try {
      Result run = run(config);
      assertEquals(0, run.code(), run.error());
    } finally {
      spark.sparkContext().removeSparkListener(watcher);
      if (active.isDefined()) {
        SparkSession.setActiveSession(active.get());
      } else {
        SparkSession.clearActiveSession();
      }
    }
    try (var files = Files.list(out.resolve("embeddings"))) {
      List<String> parts = files.map(p -> p.getFileName().toString())
          .filter(name -> name.startsWith("part-")).toList();
      assertFalse(parts.isEmpty(), "no part files");
      parts.forEach(name -> assertTrue(name.endsWith(".gz.parquet"), name));
    }
    assertFalse(seenByCaller.isEmpty(), "no job started");
    assertEquals(List.of(before), seenByCaller.stream().distinct().toList(),
        "the caller's " + legacy + " while the job ran");
  }
}
