package io.corpus.encoder.weights;

/** A weights file that cannot be used; the message names the file, tensor and problem. */
public final class WeightsException extends RuntimeException {
  public WeightsException(String message) {
    super(message);
  }

  public WeightsException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * What is wrong with a JSON file, without quoting it: a parser's message echoes the text it
   * stumbled on, which in a file that is not JSON at all (a key, a binary) must not be shown.
   */
  static String jsonProblem(java.io.IOException e) {
    if (e instanceof com.fasterxml.jackson.core.exc.StreamConstraintsException limit) {
      return "beyond what is read (" + limit.getOriginalMessage().lines().findFirst().orElse("")
          + ")";
    }
    if (e instanceof com.fasterxml.jackson.core.JsonParseException json
        && json.getOriginalMessage().startsWith("Duplicate field")) {
      return "JSON that names " + json.getOriginalMessage().substring("Duplicate field ".length())
          + " twice" + (json.getLocation() == null ? "" : " (line "
              + json.getLocation().getLineNr() + ", column " + json.getLocation().getColumnNr()
              + ")");
    }
    if (e instanceof com.fasterxml.jackson.core.JsonProcessingException json
        && json.getLocation() != null) {
      return "not valid JSON at line " + json.getLocation().getLineNr() + ", column "
          + json.getLocation().getColumnNr();
    }
    return e instanceof com.fasterxml.jackson.core.JsonProcessingException ? "not valid JSON"
        : e.toString();
  }
}
