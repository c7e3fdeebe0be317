package io.corpus.encoder.model;

import io.corpus.encoder.common.ConfigName;

/** Positions added to the input before layer 0 ({@code model.positional}). */
public enum PositionalEncoding implements ConfigName {
  NONE("none"),
  /** p(i, 2j) = sin(i / 10000^(2j/E)), p(i, 2j+1) = cos(i / 10000^(2j/E)), positions from 0. */
  SINUSOIDAL("sinusoidal"),
  /** Row i of the weights' {@code positional.weight} table, (P, E). */
  LEARNED("learned");

  private final String configName;

  PositionalEncoding(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }

  public static PositionalEncoding fromConfigName(String name) {
    return ConfigName.parse(values(), name, "positional encoding");
  }

  /** The sinusoidal encoding of one position, feature by feature, in double. */
  static double sinusoid(int position, int feature, int width) {
    int pair = feature - (feature % 2);
    double angle = position / Math.pow(10000.0, (double) pair / width);
    return feature % 2 == 0 ? Math.sin(angle) : Math.cos(angle);
  }
}
