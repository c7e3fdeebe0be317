package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * Which keys a query may see by their distance from it: every key ({@link #GLOBAL}), or those
 * at most W positions away ({@link Within}), as a sliding-window layer attends.
 */
public sealed interface Window extends Serializable permits Window.Global, Window.Within {

  /** Every key. */
  Window GLOBAL = new Global();

  /** The keys at most {@code reach} positions from the query, either way. */
  static Window within(int reach) {
    return new Within(reach);
  }

  /**
   * The window a {@code model.window} setting names: 0, the setting's "none", is
   * {@link #GLOBAL}.
   */
  static Window ofSetting(int value) {
    return value == 0 ? GLOBAL : within(value);
  }

  /** The setting's value for this window ({@link #ofSetting}'s inverse). */
  int setting();

  /** Every key. */
  record Global() implements Window {
    @Override
    public int setting() {
      return 0;
    }

    @Override
    public String toString() {
      return "global";
    }
  }

  /** A key is seen when |query − key| ≤ {@code reach} (at least 1). */
  record Within(int reach) implements Window {
    public Within {
      if (reach < 1) {
        throw new IllegalArgumentException("a window reaches at least 1 position, got " + reach
            + " (Window.GLOBAL: every key)");
      }
    }

    @Override
    public int setting() {
      return reach;
    }

    @Override
    public String toString() {
      return "window ±" + reach;
    }
  }
}
