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
   * differ ({@code input_files[0].size} inside lists of the same length), or null if none does.
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
        String found = first(key.isEmpty() ? name : key + "." + name, earlier.path(name),
            now.path(name));
        if (found != null) {
          return found;
        }
      }
      return null;
    }
    if (earlier.isArray() && now.isArray() && earlier.size() == now.size()) {
      for (int i = 0; i < earlier.size(); i++) {
        String found = first(key + "[" + i + "]", earlier.get(i), now.get(i));
        if (found != null) {
          return found;
        }
      }
      return null;
    }
    return earlier.equals(now) ? null
        : key + " = " + shown(earlier) + " (this run: " + shown(now) + ")";
  }

  private static String shown(JsonNode value) {
    String text = value.isMissingNode() ? "(none)" : value.toString();
    return text.length() <= SHOWN_CHARS ? text : text.substring(0, SHOWN_CHARS - 3) + "...";
  }
}
