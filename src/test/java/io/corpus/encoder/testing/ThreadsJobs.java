package io.corpus.encoder.testing;

import io.corpus.encoder.common.ThreadMark;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;

/**
 * Counts the Spark jobs that this thread, and the threads it starts while counting, submit: the
 * jobs of test classes running beside it on the shared context are not counted ({@link
 * ThreadMark}, as a job marks its own).
 */
public final class ThreadsJobs implements AutoCloseable {
  private static final String MARK = "corpus.encoder.test.counted";

  private final SparkContext context;
  private final Properties before;
  private final String mark = UUID.randomUUID().toString();
  private final AtomicInteger jobs = new AtomicInteger();
  private final SparkListener listener = new SparkListener() {
    @Override
    public void onJobStart(SparkListenerJobStart start) {
      if (start.properties() != null && mark.equals(start.properties().getProperty(MARK))) {
        jobs.incrementAndGet();
      }
    }
  };

  private ThreadsJobs(SparkContext context) {
    this.context = context;
    drain();   // the events of jobs before this
    before = ThreadMark.mark(context, MARK, mark);
    context.addSparkListener(listener);
  }

  /** Starts counting this thread's jobs on the shared session's context. */
  public static ThreadsJobs count() {
    return new ThreadsJobs(SparkTestSession.get().sparkContext());
  }

  /** The jobs counted so far, once every event of them has been delivered. */
  public int jobs() {
    drain();
    return jobs.get();
  }

  private void drain() {
    try {
      context.listenerBus().waitUntilEmpty();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not empty", e);
    }
  }

  @Override
  public void close() {
    context.removeSparkListener(listener);
    context.setLocalProperties(before);
  }
}
