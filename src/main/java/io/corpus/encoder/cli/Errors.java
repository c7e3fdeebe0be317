package io.corpus.encoder.cli;

import io.corpus.encoder.config.SettingsException;
import io.corpus.encoder.pipeline.InvalidRowException;
import io.corpus.encoder.weights.WeightsException;
import java.io.UncheckedIOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Turns an exception, perhaps wrapped by Spark's task failure, into one readable line. */
final class Errors {
  /** Spark's failed write names the folder it was writing (error class TASK_WRITE_FAILED). */
  private static final Pattern WRITING = Pattern.compile(
      "\\[TASK_WRITE_FAILED] Task failed while writing rows to (\\S+?)\\.?(?: SQLSTATE|$)");

  private Errors() {}

  static String describe(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.util.regex.PatternSyntaxException
          || (t.getMessage() != null && t.getMessage().startsWith("error parsing regexp"))) {
        return "input.path is not a glob Hadoop can read (" + firstLine(t) + "): check its "
            + "braces {a,b} and brackets [ab]";
      }
      if (t instanceof java.net.URISyntaxException uri) {
        return "Hadoop cannot name the path '" + uri.getInput() + "' (" + uri.getReason()
            + "): a colon in a file or folder name that Hadoop lists reads as a URI scheme; "
            + "rename it, or keep it out of the folders the job reads and writes";
      }
      if (t instanceof InvalidRowException || t instanceof SettingsException
          || t instanceof WeightsException || t instanceof IllegalArgumentException) {
        return t.getMessage();
      }
    }
    String root = firstLine(rootOf(e));
    for (Throwable t = e; t != null; t = t.getCause()) {
      Matcher writing = t.getMessage() == null ? null : WRITING.matcher(t.getMessage());
      if (writing != null && writing.find()) {
        return root + " while writing " + shown(writing.group(1)) + " (nothing is committed: "
            + "the output path is as it was)";
      }
      if (t instanceof UncheckedIOException && t.getMessage() != null
          && !(t.getCause() != null && t.getMessage().equals(t.getCause().toString()))) {
        String ours = firstLine(t);
        return ours.contains(root) ? ours : ours + ": " + root;
      }
    }
    return root;
  }

  private static Throwable rootOf(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root;
  }

  private static String firstLine(Throwable t) {
    String message = t.getMessage() != null ? t.getMessage() : t.toString();
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  /** A local path without its scheme, as the user wrote it; others as they are. */
  private static String shown(String path) {
    return path.startsWith("file:") ? path.substring("file:".length()) : path;
  }
}
