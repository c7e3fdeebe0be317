package io.corpus.encoder.pipeline;

import io.corpus.encoder.kernel.ComputeThreads;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.util.TaskCompletionListener;

/**
 * The executor's cores as one {@link ComputeThreads}, which its running tasks share: a task
 * holds the cores Spark gave it ({@code spark.task.cpus}) until it completes, and its long
 * products and attention borrow the cores no task holds.
 */
final class ExecutorCores {
  private static final Pattern LOCAL = Pattern.compile("local\\[(\\d+|\\*)(,\\s*\\d+)?]");
  private static final Pattern LOCAL_CLUSTER =
      Pattern.compile("local-cluster\\[\\s*\\d+\\s*,\\s*(\\d+)\\s*,.*]");

  private ExecutorCores() {
  }

  /** This task's share of its executor's cores, given back when the task completes. */
  static ComputeThreads.Task join() {
    TaskContext task = TaskContext.get();
    SparkEnv env = SparkEnv.get();
    if (task == null || env == null) {
      return ComputeThreads.SERIAL;
    }
    ComputeThreads.Task share = ComputeThreads.shared(count(env.conf())).join(task.cpus());
    task.addTaskCompletionListener((TaskCompletionListener) context -> share.close());
    return share;
  }

  /**
   * The cores an executor has: {@code spark.executor.cores} where set; else the master's count
   * in local mode ({@code local[N]}, {@code local[*]}, a local cluster's cores per worker);
   * else the cores the JVM sees (a standalone executor takes all its worker's by default).
   */
  static int count(SparkConf conf) {
    if (conf.contains("spark.executor.cores")) {
      return Math.max(1, conf.getInt("spark.executor.cores", 1));
    }
    String master = conf.get("spark.master", "");
    int machine = Runtime.getRuntime().availableProcessors();
    Matcher local = LOCAL.matcher(master);
    if (local.matches()) {
      return local.group(1).equals("*") ? machine : Math.max(1, Integer.parseInt(local.group(1)));
    }
    if (master.equals("local")) {
      return 1;
    }
    Matcher cluster = LOCAL_CLUSTER.matcher(master);
    if (cluster.matches()) {
      return Math.max(1, Integer.parseInt(cluster.group(1)));
    }
    return machine;
  }
}
