package io.corpus.encoder.cli;

import org.apache.spark.sql.SparkSession;

/**
 * The job's Spark session, started on a thread of its own (seconds of single-threaded set-up)
 * while the job checks its settings and loads the model. A job refused meanwhile gives it up
 * ({@link #abandon()}) without waiting: a session this start made is stopped as soon as it is up,
 * and a caller's session (tests, a notebook) is left running. A later start in the same JVM
 * waits for an abandoned one to end first, so that it neither takes that session for a
 * caller's nor has it stopped under it.
 */
final class SessionStart {
  /** The last start given up; guarded by the class. */
  private static BackgroundTask<SparkSession> abandonedStart;

  private final boolean sessionExisted;
  private final BackgroundTask<SparkSession> starting;
  private boolean abandoned;   // both guarded by this
  private SparkSession made;

  /** Starts a session with Spark ML's SQL functions if {@code mlFunctions}. */
  SessionStart(String appName, boolean mlFunctions) {
    awaitAbandoned();
    sessionExisted = SparkSession.getDefaultSession().isDefined();
    starting = new BackgroundTask<>("spark-start", "Spark was starting", () -> {
      SparkSession spark = SparkSessions.forJob(appName, mlFunctions);
      synchronized (this) {
        made = spark;
        if (abandoned && !sessionExisted) {
          spark.stop();
        }
      }
      return spark;
    });
  }

  /** The session, once up; its start's failure rethrown as it was thrown. */
  SparkSession get() {
    return starting.get();
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
    synchronized (SessionStart.class) {
      abandonedStart = starting;
    }
    synchronized (this) {
      abandoned = true;
      up = made;
    }
    if (up != null && !sessionExisted) {
      up.stop();
    }
  }

  /** Waits until a start given up earlier has stopped the session it made, if it made one. */
  private static void awaitAbandoned() {
    BackgroundTask<SparkSession> earlier;
    synchronized (SessionStart.class) {
      earlier = abandonedStart;
      abandonedStart = null;
    }
    if (earlier != null) {
      earlier.awaitEnd();   // one that failed to start left nothing to stop
    }
  }
}
