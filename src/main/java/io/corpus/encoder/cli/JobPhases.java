package io.corpus.encoder.cli;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * Where a job's wall time goes, phase by phase, and how long its tasks ran: for the log and the
 * run summary. Phases are marked on the driver as the job passes them; the first, {@code jvm}, is
 * the JVM's own start-up before {@code main}. Driver only.
 */
final class JobPhases extends SparkListener {
  private final Map<String, Double> seconds = new LinkedHashMap<>();
  private long last;
  private volatile long taskRunMillis;

  /** Starts the clock at {@code mainStartNanos}, when {@code main} began. */
  JobPhases(long mainStartNanos) {
    long uptimeAtMain = ManagementFactory.getRuntimeMXBean().getUptime()
        - (System.nanoTime() - mainStartNanos) / 1_000_000;
    seconds.put("jvm", Math.max(0, uptimeAtMain) / 1e3);
    last = mainStartNanos;
  }

  /** Ends the phase called {@code name} now; returns its seconds. */
  synchronized double end(String name) {
    long now = System.nanoTime();
    double s = (now - last) / 1e9;
    seconds.merge(name, s, Double::sum);
    last = now;
    return s;
  }

  /** Seconds per phase, in the order they ended. */
  synchronized Map<String, Double> seconds() {
    Map<String, Double> rounded = new LinkedHashMap<>();
    seconds.forEach((k, v) -> rounded.put(k, round(v)));
    return rounded;
  }

  /** Seconds to hundredths, as the summary shows them. */
  static double round(double seconds) {
    return Math.round(seconds * 100) / 100.0;
  }

  /** Run time of every task that ended, summed (Spark's executorRunTime). */
  double taskSeconds() {
    return taskRunMillis / 1e3;
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    if (end.taskMetrics() != null) {
      synchronized (this) {
        taskRunMillis += end.taskMetrics().executorRunTime();
      }
    }
  }
}
