package io.corpus.encoder.common;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.TreeSet;

/**
 * Where what a run depends on differs from what an earlier run recorded, in one phrase for an
 * error or a log line: {@code output.normalize = true (this run: false)}.
 */
public final class JsonDifference {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int SHOWN_CHARS = 120;
  private static final int CONTEXT_CHARS = 40;

  private JsonDifference() {}

  /** A value as a file holds it: maps, lists, strings and numbers read back from its JSON. */
  public static JsonNode of(Object value) {
    try {
      return JSON.readTree(JSON.writeValueAsString(value));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * {@code key = earlier value (this run: value)} for the first key, in name order, whose values
   * differ ({@code input_files[0].size} inside lists; {@code (none)} for an entry one list lacks;
   * a setting's key, such as {@code output.normalize}, alone wherever it is nested),
   * or null if none does. A long value is shown from a little before where the two part.
   */
  public static String first(JsonNode earlier, JsonNode now) {
    return first("", earlier, now);
  }

  private static String first(String key, JsonNode earlier, JsonNode now) {
    if (earlier.isObject() && now.isObject()) {
      TreeSet<String> names = new TreeSet<>();
      earlier.fieldNames().forEachRemaining(names::add);
      for (Iterator<String> it = now.fieldNames(); it.hasNext(); ) {
        names.add(it.next());
      }
      for (String name : names) {
        // A name with a dot in it is a setting's key, which says where it is by itself.
        String found = first(key.isEmpty() || name.contains(".") ? name : key + "." + name,
            earlier.path(name), now.path(name));
        if (found != null) {
          return found;
        }
      }
      return null;
    }
    if (earlier.isArray() && now.isArray()) {
      // Lists of different lengths: the first entry that differs, or the first one only one has.
      for (int i = 0; i < Math.max(earlier.size(), now.size()); i++) {
        String found = first(key + "[" + i + "]", earlier.path(i), now.path(i));
        if (found != null) {
          return found;
        }
      }
      return null;
    }
    if (earlier.equals(now)) {
      return null;
    }
    String was = text(earlier);
    String is = text(now);
    if (earlier.isMissingNode() || now.isMissingNode()) {   // nothing to align: their ends
      return key + " = " + tail(was) + " (this run: " + tail(is) + ")";
    }
    int same = 0;
    while (same < Math.min(was.length(), is.length()) && was.charAt(same) == is.charAt(same)) {
      same++;
    }
    // Long values are shown from a little before where they part, so the difference shows.
    int from = Math.max(0, Math.min(same - CONTEXT_CHARS, Math.max(was.length(), is.length())
        - SHOWN_CHARS));
    return key + " = " + shown(was, from) + " (this run: " + shown(is, from) + ")";
  }

  private static String tail(String text) {
    return text.length() <= SHOWN_CHARS ? text
        : "..." + text.substring(text.length() - SHOWN_CHARS + 3);
  }

  private static String text(JsonNode value) {
    return value.isMissingNode() ? "(none)" : value.toString();
  }

  private static String shown(String text, int from) {
    int start = Math.min(from, text.length());
    String head = start > 0 ? "..." : "";
    return text.length() - start <= SHOWN_CHARS ? head + text.substring(start)
        : head + text.substring(start, start + SHOWN_CHARS - 3) + "...";
  }
}
