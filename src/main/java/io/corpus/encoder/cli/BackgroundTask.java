package io.corpus.encoder.cli;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * Work run on a daemon thread of its own while the job goes on, its result taken later: Spark's
 * start ({@link SessionStart}), the model's fingerprint ({@link UpdatePlan#fingerprint}) and the
 * tokenizer read ahead ({@link Preflight#readTokenizerAhead}), all beside the model's load,
 * Spark's reflection for the input hash ({@link UpdatePlan#prepareInputHash}) and the kernels'
 * warm-up ({@link EncodeCommand}). A job that fails first leaves the thread to end on its own.
 */
final class BackgroundTask<T> {
  private final FutureTask<T> task;
  private final String doing;

  /** Starts {@code work} on a thread named {@code thread}; {@code doing} names it in errors. */
  BackgroundTask(String thread, String doing, Callable<T> work) {
    this.task = new FutureTask<>(work);
    this.doing = doing;
    Thread running = new Thread(task, thread);
    running.setDaemon(true);
    running.start();
  }

  /** The result, once there; the work's failure rethrown as it was thrown. */
  T get() {
    try {
      return task.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while " + doing, e);
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

  /** Waits until the work has ended, however it ended. */
  void awaitEnd() {
    try {
      task.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      // it failed: nothing more to wait for
    }
  }
}
