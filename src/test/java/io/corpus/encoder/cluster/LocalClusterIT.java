package io.corpus.encoder.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.bench.BenchJob;
import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.testing.RealModelReference;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.StagingPieces;
import io.corpus.encoder.testing.Tolerances;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The job on a real standalone cluster on this machine: {@code jobs/local-cluster up} with one
 * worker of two cores, jobs sent with {@code jobs/submit}, executors in JVMs of their own (one
 * per job: each cold JVM costs seconds of the two cores' time; the IT took 171 s with one worker
 * against 238 with two of one core). Checks
 * text in on executors against the reference's ids and vectors, then kills an executor and,
 * separately, the driver in the middle of a job that takes tens of seconds; the driver's rerun
 * resumes from the pieces the executors had committed, and both outputs equal local mode's bit
 * for bit. (That every golden case's model crosses to an executor with its values, through Java
 * serialization or Kryo, {@code JavaSerializedTest} shows without a cluster; a job here costs
 * twenty seconds.)
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LocalClusterIT {
  private static String master;
  private static final Duration JOB_TIMEOUT = Duration.ofMinutes(4);
  private static final Path WORK = Scripts.ROOT.resolve("target/it-cluster/work");
  private static Scripts scripts;
  private static Path bigJob;
  private static Map<String, float[]> bigJobLocal;

  @BeforeAll
  static void startCluster() throws Exception {
    deleteTree(WORK);
    scripts = new Scripts(Scripts.ROOT.resolve("target/it-cluster/state"), WORK.resolve("logs"),
        WORK.resolve("tmp"));
    // Ports the system hands out as free, so a second checkout's tests (or a user's own
    // cluster on 7077) never collide with this one. The daemons start while the big job is
    // written and run in local mode.
    int port = freePort();
    master = "spark://127.0.0.1:" + port;
    Scripts.Running up = scripts.start("cluster-up", "local-cluster", "up", "--workers", "1",
        "--cores", "2", "--memory", "3g", "--port", String.valueOf(port), "--webui-port",
        String.valueOf(freePort()));
    // The job the kill tests disturb, and its undisturbed output from local mode: 192 sequences
    // of 128 tokens through 4 BERT-base-shaped layers, in 16 files (8 tasks of a few seconds).
    bigJob = WORK.resolve("big");
    BenchJob.write(SparkTestSession.get(), bigJob.toString(), "--rows", "192", "--layers", "4",
        "--files", "16");
    Path localConfig = jobConfig("local-out");
    scripts.run(JOB_TIMEOUT, "local", "encode", "--config", localConfig.toString());
    bigJobLocal = pooled(bigJob.resolve("local-out"));
    assertEquals(0, up.await(Duration.ofMinutes(2)), "jobs/local-cluster up failed:\n"
        + up.output());
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (scripts == null) {
      return;
    }
    scripts.run(Duration.ofMinutes(1), "cluster-down", "local-cluster", "down");
    assertEquals(List.of(), scripts.clusterProcesses(), "processes left after down");
  }

  /**
   * Text in on executors of their own, in int8, with Kryo as {@code spark.serializer} (as many
   * clusters set it): the app jar's tokenizer (DJL with its native library) gives
   * all-MiniLM-L6-v2's reference ids, and the broadcast embedding layer and int8 layers, held in
   * native memory, reach the executors with their values: the vectors stay within int8's
   * tolerance of the reference, and every executor multiplied on OpenBLAS. (That float32 on
   * executors gives local mode's bits, the big job shows.)
   */
  @Test
  @Order(1)
  void textInInt8WithKryoOnTheClusterGivesTheReferenceIdsAndVectors() throws Exception {
    SparkSession spark = SparkTestSession.get();
    RealModelReference reference = RealModelReference.miniLm(spark);
    Path output = submitMiniLm(reference, "text-int8", List.of("model.precision = int8"),
        "spark.serializer=org.apache.spark.serializer.KryoSerializer");
    List<Row> rows = spark.read().parquet(output.resolve("embeddings").toString())
        .collectAsList();
    reference.assertIds(rows, "input_ids");
    double worst = reference.worstSentenceCosineGap(rows, "pooled");
    assertTrue(worst <= Tolerances.int8MiniLm(), "worst 1 - cosine " + worst);
    assertEquals(30, ranOnExecutors(output).rowsWritten());
  }

  /**
   * Submits all-MiniLM-L6-v2 on its reference texts as job {@code name}, with {@code settings}
   * added to its config and each of {@code sparkConf} as a {@code --conf}; returns the output.
   */
  private Path submitMiniLm(RealModelReference reference, String name, List<String> settings,
      String... sparkConf) throws Exception {
    Path dir = Files.createDirectories(WORK.resolve(name));
    Path output = dir.resolve("out");
    Path config = dir.resolve("job.conf");
    List<String> lines = new ArrayList<>(List.of(
        "input { path = \"" + reference.folder().resolve("expected/texts.parquet")
            + "\", text-column = text }",
        "model.path = \"" + reference.folder() + "\"",
        "output.path = \"" + output + "\"",
        "execution.progress = false"));
    lines.addAll(settings);
    Files.writeString(config, String.join("\n", lines));
    List<String> args = new ArrayList<>(List.of("--master", master, "--executor-memory", "1g",
        "--conf", "spark.ui.enabled=false"));
    for (String conf : sparkConf) {
      args.addAll(List.of("--conf", conf));
    }
    args.addAll(List.of("--config", config.toString()));
    scripts.run(JOB_TIMEOUT, name, "submit", args.toArray(String[]::new));
    return output;
  }

  /**
   * The run summary of {@code output}, whose tasks all ran on executors, none in the driver,
   * each of which multiplied on OpenBLAS (the app jar's, or the node's).
   */
  private static RunSummary ranOnExecutors(Path output) throws IOException {
    RunSummary summary = RunSummary.read(output.resolve("run-summary.json"));
    assertFalse(summary.executors().isEmpty());
    summary.executors().forEach((id, blas) -> {
      assertFalse(id.equals("driver"), "tasks ran in the driver: " + summary.executors());
      assertTrue(blas.startsWith("OpenBLAS 0."), id + ": " + blas);
    });
    return summary;
  }

  @Test
  @Order(2)
  void jobSurvivesAnExecutorKilledMidJob() throws Exception {
    Path config = jobConfig("cluster-out");
    long start = System.nanoTime();
    Scripts.Running job = startBigJob("executor-kill", config);
    long killedPid = waitForRowsThen(job, () -> {
      List<Long> pids = scripts.executorPids();
      assertFalse(pids.isEmpty(), "no executor JVM found");
      // killed while a task computes on it (the first progress line may come before its first
      // task does, on a loaded machine), so that the task is lost
      awaitComputingTask(job, pids.get(0));
      ProcessHandle.of(pids.get(0)).orElseThrow().destroyForcibly();   // kill -9
      return pids.get(0);
    });
    double killedAt = (System.nanoTime() - start) / 1e9;
    assertEquals(0, job.await(JOB_TIMEOUT), job.output());
    double seconds = (System.nanoTime() - start) / 1e9;

    String log = job.output();
    long lostTasks = count(log, "Lost task");
    System.out.printf("executor kill: executor JVM %d killed at %.1f s, job done at %.1f s, "
        + "%d task(s) lost and rerun, lines: %s%n", killedPid, killedAt, seconds, lostTasks,
        matching(log, "Lost executor|Lost task"));
    assertTrue(log.contains("Lost executor"), "the driver never noticed the kill:\n" + log);
    assertTrue(lostTasks > 0, "no task was lost, so none was rerun: the kill came too late or "
        + "too early:\n" + log);
    assertSameOutput(bigJob.resolve("cluster-out"));
  }

  @Test
  @Order(3)
  void driverKilledMidJobLeavesNoOutputThatLooksCompleteAndItsRerunResumes() throws Exception {
    Path config = jobConfig("driver-kill-out");
    Path output = bigJob.resolve("driver-kill-out");
    Scripts.Running job = startBigJob("driver-kill", config);
    // killed once the executors have committed two of the job's eight pieces
    awaitWhileRunning(job, "two pieces were committed", 20,
        () -> StagingPieces.committed(output) >= 2);
    job.process().destroyForcibly();   // jobs/submit execs the driver's JVM: this is kill -9
    job.process().waitFor();
    assertFalse(Files.exists(output), "a killed driver left " + output);
    try (Stream<Path> left = Files.list(scripts.temporary())) {
      assertTrue(left.anyMatch(p -> p.getFileName().toString().startsWith("blockmgr-")),
          "the killed driver's block manager folder is in " + scripts.temporary());
    }
    List<Path> staging;
    try (Stream<Path> files = Files.list(bigJob)) {
      staging = files.filter(p -> p.getFileName().toString().startsWith(".driver-kill-out.staging"))
          .toList();
    }
    System.out.println("driver kill: left behind " + staging);
    assertEquals(1, staging.size(), "the killed run's staging folder: " + staging);
    Path lock = bigJob.resolve(".driver-kill-out.lock");
    assertTrue(Files.exists(lock), "the killed run's lock");

    String rerun = scripts.run(JOB_TIMEOUT, "driver-kill-rerun", "submit", "--master", master,
        "--executor-memory", "1200m", "--conf", "spark.ui.enabled=false",
        "--config", config.toString());
    assertTrue(rerun.contains("Took over the output path's lock"), rerun);
    // The rerun resumes: it takes over the killed run's staging folder and reuses the pieces
    // its executors committed there, if the splits are the same (the same task slots).
    String killedRun = staging.get(0).getFileName().toString()
        .substring(".driver-kill-out.staging-".length());
    assertTrue(rerun.lines().anyMatch(l -> l.contains("Took over the staging folder of run "
        + killedRun)), rerun);
    System.out.println("driver kill, rerun: " + matching(rerun, "resuming:|are not reused"));
    java.util.regex.Matcher resumed = java.util.regex.Pattern
        .compile("resuming: (\\d+) of (\\d+) pieces").matcher(rerun);
    assertTrue(resumed.find(), rerun);
    int reused = Integer.parseInt(resumed.group(1));
    assertTrue(reused >= 2 && reused < Integer.parseInt(resumed.group(2)), resumed.group());
    for (Path p : staging) {
      assertFalse(Files.exists(p), "the rerun kept the abandoned " + p);
    }
    assertFalse(Files.exists(lock), "the rerun left its lock");
    assertSameOutput(output);
  }

  private interface Action {
    long run() throws Exception;
  }

  /**
   * Waits (woken by the job's output, not a timer) for the job's first progress line, which must
   * not count every row done, then acts while the job runs; returns the action's.
   */
  private static long waitForRowsThen(Scripts.Running job, Action action) throws Exception {
    long done = job.awaitProgress(JOB_TIMEOUT);
    assertTrue(done >= 0, "no progress line before the job ended or within " + JOB_TIMEOUT
        + ":\n" + job.output());
    assertTrue(done < 192, "all rows were done before the kill; make the job longer");
    assertTrue(job.process().isAlive(), "the job ended before it could be disturbed:\n"
        + job.output());
    return action.run();
  }

  private interface Condition {
    boolean holds() throws Exception;
  }

  /**
   * Polls {@code condition} every {@code millis} until it holds; fails, naming {@code what}, if
   * the job ends first or {@link #JOB_TIMEOUT} passes.
   */
  private static void awaitWhileRunning(Scripts.Running job, String what, long millis,
      Condition condition) throws Exception {
    long deadline = System.nanoTime() + JOB_TIMEOUT.toNanos();
    while (!condition.holds()) {
      assertTrue(job.process().isAlive(), "the job ended before " + what + ":\n"
          + job.output());
      assertTrue(System.nanoTime() < deadline, "waited " + JOB_TIMEOUT + " for: " + what);
      Thread.sleep(millis);
    }
  }

  /**
   * Waits until a task computes on the executor {@code pid}: one of its task threads' CPU time
   * grows by 3 clock ticks (30 ms) between two looks 100 ms apart.
   */
  private static void awaitComputingTask(Scripts.Running job, long pid) throws Exception {
    Map<Long, Long> seen = Scripts.taskThreadTicks(pid);
    awaitWhileRunning(job, "a task computed on executor " + pid, 100, () -> {
      Map<Long, Long> now = Scripts.taskThreadTicks(pid);
      boolean grew = now.entrySet().stream()
          .anyMatch(t -> t.getValue() >= seen.getOrDefault(t.getKey(), 0L) + 3);
      seen.putAll(now);
      return grew;
    });
  }

  private static Scripts.Running startBigJob(String name, Path config) throws IOException {
    return scripts.start(name, "submit", "--master", master, "--executor-memory", "1200m",
        "--conf", "spark.ui.enabled=false", "--config", config.toString());
  }

  /** The big job's config with another output folder. */
  private static Path jobConfig(String output) throws IOException {
    Path config = bigJob.resolve(output + ".conf");
    Files.writeString(config, String.join("\n",
        "include \"job.conf\"",
        // as a user's job does, where the benchmarks' job.conf times every run afresh: the
        // driver-kill test's rerun resumes from the pieces the killed run committed
        "execution.resume = true",
        "output.path = " + output,
        "output.mode = error-if-exists",
        // mean-pooled vectors only: the token matrices (75 MB) cost more to write than to
        // compute, and a pooled float differs if any token's state feeding it does
        "output { pooling = mean, token-embeddings = false }", ""));
    return config;
  }

  /**
   * The output equals local mode's to the bit (the kernels are deterministic, so a task rerun on
   * another executor writes the same floats).
   */
  private static void assertSameOutput(Path output) {
    Map<String, float[]> cluster = pooled(output);
    assertEquals(bigJobLocal.keySet(), cluster.keySet());
    for (Map.Entry<String, float[]> e : bigJobLocal.entrySet()) {
      assertArrayEquals(e.getValue(), cluster.get(e.getKey()), "row " + e.getKey());
    }
    System.out.printf("%s: %d rows, bitwise equal to local mode%n", output, cluster.size());
  }

  private static int freePort() throws IOException {
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1,
        java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** id to its pooled vector; fails on a duplicate id. */
  private static Map<String, float[]> pooled(Path output) {
    SparkSession spark = SparkTestSession.get();
    Map<String, float[]> byId = new HashMap<>();
    List<Row> rows = spark.read().parquet(output.resolve("embeddings").toString())
        .select("id", "pooled").collectAsList();
    for (Row r : rows) {
      List<Float> values = r.getList(1);
      float[] vector = new float[values.size()];
      for (int e = 0; e < vector.length; e++) {
        vector[e] = values.get(e);
      }
      assertTrue(byId.put(r.getString(0), vector) == null, "duplicate row " + r.getString(0));
    }
    return byId;
  }

  private static long count(String text, String phrase) {
    return text.lines().filter(l -> l.contains(phrase)).count();
  }

  private static List<String> matching(String text, String regex) {
    Pattern p = Pattern.compile(regex);
    return text.lines().filter(l -> p.matcher(l).find()).toList();
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
