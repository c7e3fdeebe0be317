package io.corpus.encoder.common;

/** What is wrong with a JSON file, in one line. */
public final class JsonProblem {
  private JsonProblem() {}

  /**
   * What is wrong with a JSON file, without quoting it: a parser's message echoes the text it
   * stumbled on, which in a file that is not JSON at all (a key, a binary) must not be shown.
   */
  public static String of(java.io.IOException e) {
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
