package io.corpus.encoder.common;

import java.util.concurrent.Executor;

/**
 * An executor that runs each task on a new daemon thread of its own: for driver work that waits
 * on Spark jobs, which must not hold a thread of the common fork-join pool. Since Java 25,
 * {@code CompletableFuture}'s async default is that pool even where it has one thread (2 cores;
 * Java 17 started a thread per task there), and Hadoop's checksummed local reads complete their
 * vectored ranges on it (thenCombineAsync): a job's tasks reading Parquet then waited on a pool
 * held by the driver thread waiting for them, until the read timed out after 300 s.
 */
public final class OwnThread {
  private OwnThread() {}

  /** Runs each task on a new daemon thread called {@code name}. */
  public static Executor named(String name) {
    return task -> {
      Thread thread = new Thread(task, name);
      thread.setDaemon(true);
      thread.start();
    };
  }
}
