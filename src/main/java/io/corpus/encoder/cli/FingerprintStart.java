package io.corpus.encoder.cli;

import io.corpus.encoder.config.JobSettings;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * The model's fingerprint ({@link UpdatePlan#fingerprint}), hashed on a thread of its own while
 * the job loads the model from the same files: a decoder's 1.2 GB took a second of SHA-256 on
 * the path to Spark's first job, after the load, where a core is free during it. A job that
 * fails first leaves the thread to end on its own (a daemon, it holds a 1 MB buffer).
 */
final class FingerprintStart {
  private final FutureTask<String> hashing;

  /** Starts hashing the files the settings name. */
  FingerprintStart(JobSettings settings) {
    hashing = new FutureTask<>(() -> UpdatePlan.fingerprint(settings));
    Thread thread = new Thread(hashing, "model-fingerprint");
    thread.setDaemon(true);
    thread.start();
  }

  /** The fingerprint, once hashed; a failure rethrown as it was thrown. */
  String get() {
    try {
      return hashing.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the model's files were hashed", e);
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
}
