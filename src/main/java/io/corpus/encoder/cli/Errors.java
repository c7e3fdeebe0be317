package io.corpus.encoder.cli;

import io.corpus.encoder.config.SettingsException;
import io.corpus.encoder.pipeline.InvalidRowException;
import io.corpus.encoder.weights.WeightsException;

/** Turns an exception, perhaps wrapped by Spark's task failure, into one readable line. */
final class Errors {
  private Errors() {}

  static String describe(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InvalidRowException || t instanceof SettingsException
          || t instanceof WeightsException || t instanceof IllegalArgumentException) {
        return t.getMessage();
      }
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage() != null ? root.getMessage() : root.toString();
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
