package io.corpus.encoder.cli;

import io.corpus.encoder.io.NioLocalFileSystem;
import java.util.function.Supplier;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensionsProvider;
import org.apache.spark.sql.classic.SparkSession.Builder;

/**
 * The job's SparkSession. Under {@code spark-submit} the master and resources come from there;
 * run plainly, the job starts an embedded local master on every core. Either way Spark's own
 * console progress bar is off (the job prints its own) and the web UI is off unless asked for.
 *
 * <p>spark-mllib registers Spark ML's SQL functions ({@code array_to_vector} and others) as a
 * session extension that every new session loads, and setting them up (Scala's runtime
 * reflection) took about 1.2 s of the session's start, on the path before any task runs. Only the
 * report's corpus map calls one, so a job that writes no report starts its session without it.
 */
public final class SparkSessions {
  /** spark-mllib's session extension: Spark ML's SQL functions. */
  static final String ML_FUNCTIONS = "org.apache.spark.sql.ml.InternalFunctionRegistration";

  private SparkSessions() {}

  /**
   * Whether the job's tasks run in this JVM: no {@code spark.master} (the embedded local master
   * starts) or a {@code local} one.
   */
  public static boolean runsLocally() {
    return runsLocally(new SparkConf());
  }

  private static boolean runsLocally(SparkConf conf) {
    return !conf.contains("spark.master") || conf.get("spark.master").startsWith("local");
  }

  /** A session with Spark ML's SQL functions. */
  public static SparkSession forJob(String appName) {
    return forJob(appName, true);
  }

  /**
   * A session, with Spark ML's SQL functions if {@code mlFunctions} (else a session this call
   * makes lacks them; one that was up already is returned as it is).
   */
  public static SparkSession forJob(String appName, boolean mlFunctions) {
    SparkConf conf = new SparkConf();   // holds spark.* system properties set by spark-submit
    // The classic session's own builder: the generic one finds it through Scala's runtime
    // reflection, which costs as much as the ML functions' set-up.
    Builder builder = org.apache.spark.sql.classic.SparkSession.builder().appName(appName);
    if (!conf.contains("spark.master")) {
      builder.master("local[*]")
          .config("spark.ui.enabled", conf.get("spark.ui.enabled", "false"))
          .config("spark.sql.shuffle.partitions",
              String.valueOf(Math.max(2, Runtime.getRuntime().availableProcessors())));
    }
    if (!runsLocally(conf)) {
      // Start once every requested executor is up (at most 30 s): the input is split by the task
      // slots there are, and work handed to the first executor alone would leave the others idle.
      setIfAbsent(builder, conf, "spark.scheduler.minRegisteredResourcesRatio", "1.0");
    }
    setIfAbsent(builder, conf, "spark.ui.showConsoleProgress", "false");
    setIfAbsent(builder, conf, "spark.executor.heartbeatInterval", "2s");
    // One BLAS thread per task slot: an executor runs as many tasks as it has cores, so more
    // threads per task would oversubscribe them. (Local mode: jobs/ scripts set it for the JVM.)
    setIfAbsent(builder, conf, "spark.executorEnv.OPENBLAS_NUM_THREADS", "1");
    // Heap on transparent huge pages (the kernel's madvise mode is enough): the weights and
    // batches span hundreds of MB, and on 4 KB pages the first touch of each page (a trap, costly
    // in a VM) and TLB misses in the products cost the BERT-base job 9 % of its time here. The
    // jobs/ scripts set it for a local JVM (jobs/jvm.options); this is for a cluster's executors.
    // And the int8 and bfloat16 products kept out of their callers' compiled code (jobs/jvm.options
    // says why).
    setIfAbsent(builder, conf, "spark.executor.extraJavaOptions", "-XX:+UseTransparentHugePages "
        + "-XX:CompileCommand=quiet "
        + "-XX:CompileCommand=dontinline,io/corpus/encoder/kernel/ReducedProducts.*");
    // oneDNN's OpenMP: one thread per task, as the BLAS (kernel.OneDnn also sets it per thread).
    setIfAbsent(builder, conf, "spark.executorEnv.OMP_NUM_THREADS", "1");
    // Broadcast weights are random-looking floats: compressing them only costs time.
    setIfAbsent(builder, conf, "spark.broadcast.compress", "false");
    // Local files' permissions through Java, not a chmod process per file (io.NioLocalFileSystem)
    setIfAbsent(builder, conf, "spark.hadoop." + NioLocalFileSystem.KEY,
        NioLocalFileSystem.class.getName());
    return mlFunctions ? builder.getOrCreate() : withoutMlFunctions(builder::getOrCreate);
  }

  /** What {@code start} returns, made while this thread's service lookups skip ML's functions. */
  private static <T> T withoutMlFunctions(Supplier<T> start) {
    Thread thread = Thread.currentThread();
    ClassLoader loader = thread.getContextClassLoader();
    thread.setContextClassLoader(new WithoutServiceProvider(
        loader != null ? loader : SparkSessions.class.getClassLoader(),
        SparkSessionExtensionsProvider.class.getName(), ML_FUNCTIONS));
    try {
      return start.get();
    } finally {
      thread.setContextClassLoader(loader);
    }
  }

  private static void setIfAbsent(Builder builder, SparkConf conf, String key,
      String value) {
    if (!conf.contains(key)) {
      builder.config(key, value);
    }
  }
}
