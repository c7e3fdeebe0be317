package io.corpus.encoder.cli;

import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.AccumulableInfo;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorMetricsUpdate;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import scala.Tuple4;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Prints, while a job runs, "rows done of rows total, tokens, rate, time left"; once every row is
 * done, what the job is doing instead (writing the attention maps, the report), with the time it
 * has taken so far. Counts come from two accumulators, rows finished and tokens encoded: finished
 * tasks report their final values, running tasks theirs with each executor heartbeat, so the
 * figures move between task ends too (and tokens move within one long text). Driver only.
 */
final class ProgressListener extends SparkListener implements AutoCloseable {
  private final Counter rows;
  private final Counter tokens;
  private final long total;
  private final PrintStream out;
  private final long startNanos = System.nanoTime();
  private final ScheduledExecutorService timer;
  private volatile String phase;
  private volatile long phaseStartNanos;
  private boolean allDonePrinted;
  private SparkContext registeredWith;

  /**
   * A listener registered with {@code sc}, printing every {@code periodSeconds}; close it.
   *
   * @param rowsId the accumulator of input rows finished (encoded or set aside)
   * @param tokensId the accumulator of tokens encoded
   */
  static ProgressListener start(SparkContext sc, long rowsId, long tokensId, long total,
      PrintStream out, long periodSeconds) {
    ProgressListener listener = new ProgressListener(rowsId, tokensId, total, out,
        periodSeconds);
    sc.addSparkListener(listener);
    listener.registeredWith = sc;
    return listener;
  }

  ProgressListener(long rowsId, long tokensId, long total, PrintStream out, long periodSeconds) {
    this.rows = new Counter(rowsId);
    this.tokens = new Counter(tokensId);
    this.total = total;
    this.out = out;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "encoder-progress");
      t.setDaemon(true);
      return t;
    });
    if (periodSeconds > 0) {
      timer.scheduleAtFixedRate(this::print, periodSeconds, periodSeconds, TimeUnit.SECONDS);
    }
  }

  /** What the job does once the rows are encoded ("writing the attention maps"). */
  void phase(String name) {
    phase = name;
    phaseStartNanos = System.nanoTime();
  }

  long done() {
    return Math.min(rows.value(), total);
  }

  @Override
  public void onExecutorMetricsUpdate(SparkListenerExecutorMetricsUpdate update) {
    for (Tuple4<Object, Object, Object, scala.collection.immutable.Seq<AccumulableInfo>> task
        : CollectionConverters.asJava(update.accumUpdates())) {
      rows.running((Long) task._1(), task._4());
      tokens.running((Long) task._1(), task._4());
    }
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    boolean succeeded = end.reason() instanceof org.apache.spark.Success$;
    rows.ended(end.taskInfo().taskId(), succeeded, end.taskInfo().accumulables());
    tokens.ended(end.taskInfo().taskId(), succeeded, end.taskInfo().accumulables());
  }

  synchronized void print() {
    long done = done();
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    if (done < total || !allDonePrinted) {
      double rate = done / Math.max(seconds, 1e-9);
      String left = done == 0 ? "?" : String.format("%.0f s", (total - done) / rate);
      out.printf("progress: %,d of %,d rows (%.1f%%), %,d tokens at %,.0f tokens/s, about %s "
          + "left%n", done, total, total == 0 ? 100.0 : 100.0 * done / total, tokens.value(),
          tokens.value() / Math.max(seconds, 1e-9), left);
      allDonePrinted = done >= total;
    } else if (phase != null) {
      out.printf("progress: all %,d rows encoded; %s, %.0f s so far%n", total, phase,
          (System.nanoTime() - phaseStartNanos) / 1e9);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    if (registeredWith != null) {
      registeredWith.removeSparkListener(this);
      registeredWith = null;
    }
  }

  /** One accumulator's total: finished tasks' final values plus running tasks' latest. */
  private static final class Counter {
    private final long accumulatorId;
    private final Map<Long, Long> running = new ConcurrentHashMap<>();
    private volatile long finished;

    Counter(long accumulatorId) {
      this.accumulatorId = accumulatorId;
    }

    long value() {
      long sum = finished;
      for (long v : running.values()) {
        sum += v;
      }
      return sum;
    }

    void running(long taskId, scala.collection.immutable.Seq<AccumulableInfo> infos) {
      Long value = valueOf(infos);
      if (value != null) {
        running.put(taskId, value);
      }
    }

    synchronized void ended(long taskId, boolean succeeded,
        scala.collection.immutable.Seq<AccumulableInfo> infos) {
      running.remove(taskId);
      Long value = succeeded ? valueOf(infos) : null;
      if (value != null) {
        finished += value;
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
  }
}
