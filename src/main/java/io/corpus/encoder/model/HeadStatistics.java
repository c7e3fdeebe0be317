package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Elementwise;

/**
 * What one attention head does, measured on its (T, T) weights a (Clark et al. 2019, "What Does
 * BERT Look At?"): per query row i, {@link Stat}'s quantities; summed over rows here, so that
 * sums and row counts from many sequences and partitions merge exactly into means.
 */
public final class HeadStatistics {
  private static final Elementwise MATH = Elementwise.INSTANCE;

  /** The statistics, in the order of a sums array; {@link #column()} names the output column. */
  public enum Stat {
    /** −Σⱼ aᵢⱼ ln aᵢⱼ, nats: near ln T for a head that attends broadly. */
    ENTROPY("entropy"),
    /** Σⱼ aᵢⱼ |i − j|: how far the head looks, in positions. */
    DISTANCE("distance"),
    /** aᵢ₀: mass on the first token. */
    FIRST_TOKEN("first_token"),
    /** aᵢᵢ. */
    SELF("self"),
    /** aᵢ,ᵢ₋₁, 0 for i = 0. */
    PREVIOUS("previous"),
    /** aᵢ,ᵢ₊₁, 0 for the last token. */
    NEXT("next"),
    /** maxⱼ aᵢⱼ. */
    MAX_WEIGHT("max_weight");

    private final String column;

    Stat(String column) {
      this.column = column;
    }

    public String column() {
      return column;
    }
  }

  /** Sums per map: one per {@link Stat}. */
  public static final int COUNT = Stat.values().length;

  private HeadStatistics() {}

  /**
   * Adds every query row's statistics of one (T, T) map at {@code weights[offset]} to
   * {@code sums[at, at + COUNT)}. {@code positions} (T) are the tokens' positions in the padded
   * sequence, ascending: distances and neighbours are in those positions, so a padded key counts
   * as a key of weight 0, as in a map over every position.
   */
  public static void addMap(float[] weights, int offset, int t, float[] positions, double[] sums,
      int at) {
    for (int i = 0; i < t; i++) {
      addRow(weights, offset + i * t, i, t, positions, sums, at);
    }
  }

  /**
   * Adds the statistics of query i's row of T weights at {@code weights[row]} to
   * {@code sums[at, at + COUNT)}, as {@link #addMap} does for each row.
   */
  public static void addRow(float[] weights, int row, int i, int t, float[] positions,
      double[] sums, int at) {
    boolean startsAtZero = t > 0 && positions[0] == 0f;
    float position = positions[i];
    sums[at] += MATH.entropy(weights, row, t);
    sums[at + 1] += MATH.weightedDistance(weights, row, t, positions, position);
    sums[at + 2] += startsAtZero ? weights[row] : 0f;
    sums[at + 3] += weights[row + i];
    sums[at + 4] += i > 0 && positions[i - 1] == position - 1 ? weights[row + i - 1] : 0f;
    sums[at + 5] += i + 1 < t && positions[i + 1] == position + 1 ? weights[row + i + 1] : 0f;
    sums[at + 6] += MATH.max(weights, row, t);
  }
}
