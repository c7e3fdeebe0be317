package io.corpus.encoder.cli;

import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.spark.scheduler.AccumulableInfo;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorMetricsUpdate;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import scala.Tuple4;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Prints "rows done of rows total, rate, time left" while a job runs. Counts come from one
 * accumulator: finished tasks report their final value, running tasks report theirs with each
 * executor heartbeat, so the figure moves between task ends too. Driver only.
 */
final class ProgressListener extends SparkListener implements AutoCloseable {
  private final long accumulatorId;
  private final long total;
  private final PrintStream out;
  private final long startNanos = System.nanoTime();
  private final Map<Long, Long> running = new ConcurrentHashMap<>();
  private volatile long finished;
  private final ScheduledExecutorService timer;
  private SparkContext registeredWith;

  /** A listener registered with {@code sc}, printing every {@code periodSeconds}; close it. */
  static ProgressListener start(SparkContext sc, long accumulatorId, long total, PrintStream out,
      long periodSeconds) {
    ProgressListener listener = new ProgressListener(accumulatorId, total, out, periodSeconds);
    sc.addSparkListener(listener);
    listener.registeredWith = sc;
    return listener;
  }

  ProgressListener(long accumulatorId, long total, PrintStream out, long periodSeconds) {
    this.accumulatorId = accumulatorId;
    this.total = total;
    this.out = out;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "encoder-progress");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleAtFixedRate(this::print, periodSeconds, periodSeconds, TimeUnit.SECONDS);
  }

  long done() {
    long sum = finished;
    for (long v : running.values()) {
      sum += v;
    }
    return Math.min(sum, total);
  }

  @Override
  public void onExecutorMetricsUpdate(SparkListenerExecutorMetricsUpdate update) {
    for (Tuple4<Object, Object, Object, scala.collection.immutable.Seq<AccumulableInfo>> task
        : CollectionConverters.asJava(update.accumUpdates())) {
      Long value = valueOf(task._4());
      if (value != null) {
        running.put((Long) task._1(), value);
      }
    }
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    long taskId = end.taskInfo().taskId();
    running.remove(taskId);
    if (end.reason() instanceof org.apache.spark.Success$) {
      Long value = valueOf(end.taskInfo().accumulables());
      if (value != null) {
        synchronized (this) {
          finished += value;
        }
      }
    }
  }

  private Long valueOf(scala.collection.immutable.Seq<AccumulableInfo> infos) {
    for (AccumulableInfo info : CollectionConverters.asJava(infos)) {
      if (info.id() == accumulatorId && info.update().isDefined()) {
        return ((Number) info.update().get()).longValue();
      }
    }
    return null;
  }

  void print() {
    long done = done();
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    double rate = done / Math.max(seconds, 1e-9);
    String left = done == 0 ? "?" : String.format("%.0f s", (total - done) / rate);
    out.printf("progress: %,d of %,d rows (%.1f%%), %.1f rows/s, about %s left%n",
        done, total, total == 0 ? 100.0 : 100.0 * done / total, rate, left);
  }

  @Override
  public void close() {
    timer.shutdownNow();
    if (registeredWith != null) {
      registeredWith.removeSparkListener(this);
      registeredWith = null;
    }
  }
}
