package io.corpus.encoder.common;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** An enum constant with the name it has in configuration files and Params. */
public interface ConfigName {
  String configName();

  /** The constant of {@code values} named {@code name}; the error lists the allowed names. */
  static <E extends ConfigName> E parse(E[] values, String name, String what) {
    for (E e : values) {
      if (e.configName().equals(name.toLowerCase(Locale.ROOT))) {
        return e;
      }
    }
    throw new IllegalArgumentException("Unknown " + what + " '" + name + "', expected one of "
        + allowed(values));
  }

  /** The configuration names of {@code values}, comma-separated. */
  static String allowed(ConfigName[] values) {
    return Arrays.stream(values).map(ConfigName::configName).collect(Collectors.joining(", "));
  }

  /** The configuration names of {@code values}. */
  static String[] names(ConfigName[] values) {
    return Arrays.stream(values).map(ConfigName::configName).toArray(String[]::new);
  }
}
