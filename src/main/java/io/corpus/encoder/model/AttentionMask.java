package io.corpus.encoder.model;

/**
 * Which keys a query of one layer may see beyond padding: none after it when causal, none more
 * than {@code window} positions away when the window is positive.
 *
 * @param causal keys after the query are masked
 * @param window W: a key is allowed when |query − key| ≤ W; 0 means no window
 */
record AttentionMask(boolean causal, int window) {

  /** The mask of {@code window}'s reach. */
  AttentionMask(boolean causal, Window window) {
    this(causal, window.setting());
  }

  /** Whether a query at position q may attend to a key at position k (both real tokens). */
  boolean allows(int q, int k) {
    return (!causal || k <= q) && (window == 0 || Math.abs(q - k) <= window);
  }

  /** Whether any rule applies beyond padding. */
  boolean any() {
    return causal || window > 0;
  }

  /**
   * Whether the rule forbids every pair of a query in [firstQuery, lastQuery] and a key in
   * [firstKey, lastKey] (positions), so a tile of them can be skipped.
   */
  boolean forbidsAll(int firstQuery, int lastQuery, int firstKey, int lastKey) {
    if (causal && firstKey > lastQuery) {
      return true;
    }
    return window > 0 && (firstKey - lastQuery > window || firstQuery - lastKey > window);
  }
}
