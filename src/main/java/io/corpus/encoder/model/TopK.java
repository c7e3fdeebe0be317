package io.corpus.encoder.model;

/** The k largest weights of an attention row, largest first (ties: the lower key first). */
public final class TopK {
  private TopK() {}

  /**
   * Writes the {@code min(k, length)} largest of {@code row[offset, offset + length)} to
   * {@code weights} and their indices to {@code keys}, largest first; returns how many.
   * Insertion into a sorted list of k: O(length · k), fine for the small k this is for.
   */
  public static int of(float[] row, int offset, int length, int k, int[] keys, float[] weights) {
    int n = 0;
    for (int j = 0; j < length; j++) {
      float w = row[offset + j];
      if (n == k && w <= weights[n - 1]) {
        continue;
      }
      int at = n < k ? n++ : n - 1;
      while (at > 0 && weights[at - 1] < w) {
        weights[at] = weights[at - 1];
        keys[at] = keys[at - 1];
        at--;
      }
      weights[at] = w;
      keys[at] = j;
    }
    return n;
  }
}
