package io.corpus.encoder.cli;

import io.corpus.encoder.common.ThreadMark;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * Where a job's wall time goes, phase by phase, and how long its tasks ran: for the log and the
 * run summary. Phases are marked on the driver as the job passes them; the first, {@code jvm}, is
 * the JVM's own start-up before {@code main}. Driver only.
 *
 * <p>Tasks count only if they belong to this job's Spark jobs: those submitted from the thread
 * that {@link #listenTo} marked (and threads it starts), so that a job beside it in the same
 * application (a notebook's query, another encode job) adds nothing to its task seconds.
 */
final class JobPhases extends SparkListener {
  /** The local property that marks this job's Spark jobs. */
  private static final String RUN_PROPERTY = "corpus.encoder.run";

  private final Map<String, Double> seconds = new LinkedHashMap<>();
  private final String run = UUID.randomUUID().toString();
  private final Set<Integer> stages = ConcurrentHashMap.newKeySet();
  private long last;
  private volatile long taskRunMillis;
  private Properties propertiesBefore;

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

  /** Run time of every task of this job that ended, summed (Spark's executorRunTime). */
  double taskSeconds() {
    return taskRunMillis / 1e3;
  }

  /**
   * Marks the Spark jobs this thread submits from now on, and those of the threads it starts
   * from now on, as this job's ({@link ThreadMark}), and listens to their tasks;
   * {@link #stopListening} undoes both.
   */
  void listenTo(SparkContext context) {
    propertiesBefore = ThreadMark.mark(context, RUN_PROPERTY, run);
    context.addSparkListener(this);
  }

  /** Stops listening and gives this thread its local properties back as they were. */
  void stopListening(SparkContext context) {
    context.removeSparkListener(this);
    if (propertiesBefore != null) {
      context.setLocalProperties(propertiesBefore);
    }
  }

  @Override
  public void onJobStart(SparkListenerJobStart start) {
    if (start.properties() != null
        && run.equals(start.properties().getProperty(RUN_PROPERTY))) {
      for (Object stage : scala.jdk.javaapi.CollectionConverters.asJava(start.stageIds())) {
        stages.add((Integer) stage);
      }
    }
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    if (end.taskMetrics() != null && stages.contains(end.stageId())) {
      synchronized (this) {
        taskRunMillis += end.taskMetrics().executorRunTime();
      }
    }
  }
}
