package io.corpus.encoder.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigValue;
import java.util.Arrays;
import java.util.List;

/**
 * One setting, declared once: its HOCON key, the name of the Spark ML param that mirrors it (or
 * none), its type, default, one-line doc, the rule its values follow, and whether it shapes the
 * rows the job writes (then its value as the job used it enters the run summary's
 * {@code settings}, the reuse key that an update and a resumed run compare, and the table of
 * such settings in the configuration guide, all derived from this flag). The job's parser reads it
 * from a config through {@link #read}, the Transformer's params are made from it, and a test holds
 * {@code reference.conf} (where each key is documented at length) to the same keys and defaults.
 * The catalogue of all of them is {@link Settings}.
 *
 * @param <T> the value's type: String, Integer, Double, Boolean, or a List of Integer or String
 */
public final class Setting<T> {
  /** How a value is read from a config. */
  public enum Type { STRING, INT, DOUBLE, BOOLEAN, INT_LIST, STRING_LIST }

  /** A rule a value must follow: the whole refusal message, or null when the value is fine. */
  interface Rule<T> {
    String refusal(String key, String shown, T value);
  }

  private final String key;
  private final String param;
  private final Type type;
  private final T defaultValue;
  private final String doc;
  private final Rule<T> rule;
  private final List<String> choices;
  private final boolean shapesRows;
  private final boolean resolvedByJob;

  private Setting(String key, String param, Type type, T defaultValue, String doc, Rule<T> rule,
      List<String> choices) {
    this(key, param, type, defaultValue, doc, rule, choices, false, false);
  }

  private Setting(String key, String param, Type type, T defaultValue, String doc, Rule<T> rule,
      List<String> choices, boolean shapesRows, boolean resolvedByJob) {
    this.key = key;
    this.param = param;
    this.type = type;
    this.defaultValue = defaultValue;
    this.doc = doc;
    this.rule = rule;
    this.choices = choices;
    this.shapesRows = shapesRows;
    this.resolvedByJob = resolvedByJob;
  }

  /** This setting, marked as one whose value shapes the rows the job writes. */
  Setting<T> shapingRows() {
    return new Setting<>(key, param, type, defaultValue, doc, rule, choices, true,
        resolvedByJob);
  }

  /**
   * This setting, marked as one the job resolves or derives before its param is set: a path
   * relative to the configuration, an input column or limit that depends on the input's kind.
   */
  Setting<T> resolvedByJob() {
    return new Setting<>(key, param, type, defaultValue, doc, rule, choices, shapesRows, true);
  }

  static Setting<String> text(String key, String param, String defaultValue, String doc) {
    return new Setting<>(key, param, Type.STRING, defaultValue, doc, (k, s, v) -> null,
        List.of());
  }

  /** A string that must be one of {@code choices}. */
  static Setting<String> choice(String key, String param, String defaultValue, String[] choices,
      String doc) {
    List<String> allowed = List.of(choices);
    return new Setting<>(key, param, Type.STRING, defaultValue, doc,
        (k, s, v) -> allowed.contains(v) ? null
            : k + " = " + s + " is not one of " + String.join(", ", allowed), allowed);
  }

  static Setting<Integer> atLeast(String key, String param, int defaultValue, int minimum,
      String doc) {
    return new Setting<>(key, param, Type.INT, defaultValue, doc,
        (k, s, v) -> v >= minimum ? null : k + " must be at least " + minimum + ", got " + s,
        List.of());
  }

  static Setting<Double> positive(String key, String param, double defaultValue, String doc) {
    return new Setting<>(key, param, Type.DOUBLE, defaultValue, doc,
        (k, s, v) -> v > 0 && !v.isInfinite() ? null
            : k + " must be a positive number, got " + s, List.of());
  }

  /** A fraction in (0, 1]. */
  static Setting<Double> fraction(String key, String param, double defaultValue, String doc) {
    return new Setting<>(key, param, Type.DOUBLE, defaultValue, doc,
        (k, s, v) -> v > 0 && v <= 1 ? null : k + " must be in (0, 1], got " + s, List.of());
  }

  static Setting<Boolean> flag(String key, String param, boolean defaultValue, String doc) {
    return new Setting<>(key, param, Type.BOOLEAN, defaultValue, doc, (k, s, v) -> null,
        List.of());
  }

  /** 0-based indices: none negative. */
  static Setting<List<Integer>> indices(String key, String param, String doc) {
    return new Setting<>(key, param, Type.INT_LIST, List.of(), doc, (k, s, v) -> {
      for (int i : v) {
        if (i < 0) {
          return k + " holds " + i + "; indices are 0-based and not negative";
        }
      }
      return null;
    }, List.of());
  }

  /** Two different column names, or none. */
  static Setting<List<String>> columnPair(String key, String param, String doc) {
    return new Setting<>(key, param, Type.STRING_LIST, List.of(), doc, (k, s, v) ->
        v.isEmpty() || (v.size() == 2 && !v.get(0).isBlank() && !v.get(1).isBlank()
            && !v.get(0).equals(v.get(1))) ? null
            : k + " must name two different columns (or none), got " + s, List.of());
  }

  static Setting<List<String>> strings(String key, String param, String doc) {
    return new Setting<>(key, param, Type.STRING_LIST, List.of(), doc, (k, s, v) -> null,
        List.of());
  }

  public String key() {
    return key;
  }

  /** The Spark ML param's name, or "" when the setting is the job's only. */
  public String param() {
    return param;
  }

  public Type type() {
    return type;
  }

  public T defaultValue() {
    return defaultValue;
  }

  public String doc() {
    return doc;
  }

  /**
   * Whether the setting's value shapes the rows the job writes: a changed value means an
   * earlier output's rows and a killed run's pieces cannot be reused.
   */
  public boolean shapesRows() {
    return shapesRows;
  }

  /**
   * Whether the job sets the param from a value it resolved (see {@link #resolvedByJob()}),
   * not from the value as the configuration gives it.
   */
  public boolean isResolvedByJob() {
    return resolvedByJob;
  }

  /** The allowed values of a choice; empty for other settings. */
  public List<String> choices() {
    return choices;
  }

  /** Whether {@code value} follows the setting's rule. */
  public boolean accepts(T value) {
    return rule.refusal(key, String.valueOf(value), value) == null;
  }

  /** Refuses {@code value} with a message naming the key (and, when {@code shown}, the value). */
  void check(T value, String shown) {
    String refusal = rule.refusal(key, shown, value);
    if (refusal != null) {
      throw new SettingsException(refusal);
    }
  }

  /**
   * The value in {@code c} (which falls back to reference.conf), checked. A value substituted
   * from an environment variable is never shown in a message: it may be a secret.
   */
  @SuppressWarnings("unchecked")
  public T read(Config c) {
    if (type == Type.INT || type == Type.INT_LIST) {
      requireWholeNumbers(c);
    }
    Object value = switch (type) {
      case STRING -> c.getString(key);
      case INT -> c.getInt(key);
      case DOUBLE -> c.getDouble(key);
      case BOOLEAN -> c.getBoolean(key);
      case INT_LIST -> c.getIntList(key);
      case STRING_LIST -> c.getStringList(key);
    };
    T typed = (T) value;
    check(typed, shown(c, key, type == Type.STRING ? "'" + value + "'" : value));
    return typed;
  }

  /** Refuses 1.5 where a count is expected: the config library would read it as 1. */
  private void requireWholeNumbers(Config c) {
    ConfigValue value = c.getValue(key);
    List<ConfigValue> numbers = value instanceof ConfigList list ? list : List.of(value);
    for (ConfigValue number : numbers) {
      if (number.unwrapped() instanceof Number n && n.doubleValue() != Math.rint(n.doubleValue())) {
        throw new SettingsException(key + " must be a whole number, got "
            + shown(c, key, number.unwrapped()));
      }
    }
  }

  /** A value for a message: itself, or only the fact that it came from the environment. */
  static String shown(Config c, String key, Object value) {
    String origin = c.getValue(key).origin().description();
    return origin.startsWith("env var") ? "(a value from an environment variable)"
        : String.valueOf(value);
  }

  @Override
  public String toString() {
    return key + (param.isEmpty() ? "" : " (param " + param + ")") + " = " + defaultValue
        + (choices.isEmpty() ? "" : " of " + Arrays.toString(choices.toArray()))
        + (shapesRows ? ", shapes rows" : "");
  }
}
