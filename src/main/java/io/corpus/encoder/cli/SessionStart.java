package io.corpus.encoder.cli;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import org.apache.spark.sql.SparkSession;

/**
 * The job's Spark session, started on a thread of its own (seconds of single-threaded set-up)
 * while the job checks its settings and loads the model. A job refused meanwhile gives it up
 * ({@link #abandon()}) without waiting: a session this start made is stopped as soon as it is up,
 * and a caller's session (tests, a notebook) is left running.
 */
final class SessionStart {
  private final boolean sessionExisted = SparkSession.getDefaultSession().isDefined();
  private final FutureTask<SparkSession> starting;
  private boolean abandoned;   // both guarded by this
  private SparkSession made;

  /** Starts a session with Spark ML's SQL functions if {@code mlFunctions}. */
  SessionStart(String appName, boolean mlFunctions) {
    starting = new FutureTask<>(() -> {
      SparkSession spark = SparkSessions.forJob(appName, mlFunctions);
      synchronized (this) {
        made = spark;
        if (abandoned && !sessionExisted) {
          spark.stop();
        }
      }
      return spark;
    });
    Thread thread = new Thread(starting, "spark-start");
    thread.setDaemon(true);
    thread.start();
  }

  /** The session, once up; its start's failure rethrown as it was thrown. */
  SparkSession get() {
    try {
      return starting.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while Spark was starting", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /** Whether the session was up before this start: then nobody here stops it. */
  boolean sessionExisted() {
    return sessionExisted;
  }

  /**
   * The job will not use the session: stopped now when it is up and this start made it, else as
   * soon as it is up.
   */
  void abandon() {
    SparkSession up;
    synchronized (this) {
      abandoned = true;
      up = made;
    }
    if (up != null && !sessionExisted) {
      up.stop();
    }
  }
}
