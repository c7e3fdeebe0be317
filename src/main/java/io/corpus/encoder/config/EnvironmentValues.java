package io.corpus.encoder.config;

import com.typesafe.config.Config;
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

  /** {@code text} with each value from the environment replaced by its setting's name. */
  public String redact(String text) {
    if (text == null || byKey.isEmpty()) {
      return text;
    }
    String out = text;
    // Longest first: a value that holds another is replaced whole.
    for (Map.Entry<String, String> e : byKey.entrySet().stream()
        .sorted(Comparator.comparingInt((Map.Entry<String, String> v) -> -v.getValue().length()))
        .toList()) {
      out = out.replace(e.getValue(), "<" + e.getKey() + " from the environment>");
    }
    return out;
  }
}
