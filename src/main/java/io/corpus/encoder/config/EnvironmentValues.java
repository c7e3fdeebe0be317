package io.corpus.encoder.config;

import com.typesafe.config.Config;
import io.corpus.encoder.common.Sha256;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.io.Serializable;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The string values a job's config took from environment variables ({@code ${?MODEL_DIR}}), which
 * may be secrets: every line the job shows about its settings (errors, {@code --check}, the log,
 * run-summary.json, the report) passes through {@link #redact}, which names the setting in place
 * of its value.
 *
 * @param byKey the setting's key to the value it got (whole, or the part of a concatenation)
 */
public record EnvironmentValues(Map<String, String> byKey) implements Serializable {
  /** No value came from the environment. */
  public static final EnvironmentValues NONE = new EnvironmentValues(Map.of());
  /** Shorter values are words and numbers that messages hold anyway, not secrets. */
  private static final int SHORTEST = 3;

  public EnvironmentValues {
    byKey = Map.copyOf(byKey);
  }

  /** The string values of {@code resolved} whose origin is an environment variable. */
  static EnvironmentValues of(Config resolved) {
    Map<String, String> values = new LinkedHashMap<>();
    for (Map.Entry<String, ConfigValue> entry : resolved.entrySet()) {
      ConfigValue value = entry.getValue();
      if (value.valueType() == ConfigValueType.STRING
          && value.origin().description().contains("env var")
          && ((String) value.unwrapped()).strip().length() >= SHORTEST) {
        values.put(entry.getKey(), ((String) value.unwrapped()).strip());
      }
    }
    return new EnvironmentValues(values);
  }

  /**
   * A setting's value as the run summary, the reuse key and a resume plan hold it: itself, or,
   * where it holds a value from the environment ({@code key}'s own, or one inside a string),
   * that value's SHA-256 in its place, so that a changed secret still changes the key and none is
   * written.
   */
  public Object hidden(String key, Object value) {
    boolean fromEnvironment = byKey.containsKey(key) || (value instanceof String text
        && byKey.values().stream().anyMatch(text::contains));
    if (!fromEnvironment || value == null) {
      return value;
    }
    return "<from the environment: sha256 " + Sha256.hex(String.valueOf(value)
        .getBytes(java.nio.charset.StandardCharsets.UTF_8)) + ">";
  }

  /**
   * {@code text} with each value from the environment replaced by its setting's name; a path's
   * folder and its name as the job's sibling files carry it ({@code /data/.out.lock}) too.
   */
  public String redact(String text) {
    if (text == null || byKey.isEmpty()) {
      return text;
    }
    Map<String, String> forms = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : byKey.entrySet()) {
      String value = e.getValue();
      forms.put(value, "<" + e.getKey() + " from the environment>");
      int slash = value.replaceAll("/+$", "").lastIndexOf('/');
      if (slash > 0) {
        String folder = value.substring(0, slash);
        String name = value.substring(slash + 1).replaceAll("/+$", "");
        if (folder.replace("/", "").replace("file:", "").length() >= SHORTEST) {
          forms.putIfAbsent(folder, "<" + e.getKey() + "'s folder from the environment>");
        }
        if (name.length() >= SHORTEST) {
          forms.putIfAbsent("." + name + ".", ".<" + e.getKey() + "'s name from the "
              + "environment>.");
        }
      }
    }
    String out = text;
    // Longest first: a value that holds another is replaced whole.
    for (Map.Entry<String, String> form : forms.entrySet().stream()
        .sorted(Comparator.comparingInt((Map.Entry<String, String> v) -> -v.getKey().length()))
        .toList()) {
      out = out.replace(form.getKey(), form.getValue());
    }
    return out;
  }
}
