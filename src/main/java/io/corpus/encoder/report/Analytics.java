package io.corpus.encoder.report;

import java.util.List;

/**
 * What the report shows beside the head view and the corpus map: the statistics of each group
 * (head-stats/ grouped by input columns), the heads' importance, and a comparison with another
 * run of the same rows; each part null or empty where it was not written.
 *
 * @param groups per group (its label, e.g. {@code lang=en}), its per-head statistics; empty
 *     without stats-by
 * @param importance head-importance/, or null
 * @param comparison this run against another, or null
 */
public record Analytics(List<Group> groups, Importance importance, Comparison comparison) {
  public static final Analytics NONE = new Analytics(List.of(), null, null);

  public Analytics {
    groups = List.copyOf(groups);
  }

  /** One group's per-head statistics. */
  public record Group(String label, List<ReportPage.HeadRow> heads) {}

  /**
   * Layers × heads values, row-major (layer · heads + head); NaN where none.
   *
   * @param rows rows measured
   */
  public record Importance(int layers, int heads, long rows, double[] values) {}

  /**
   * Two runs of the same rows.
   *
   * @param other the other run's output folder, as given
   * @param statistics per statistic (in {@code HeadStatistics.Stat} order), this run's mean
   *     less the other's, layers × heads; empty when either has no statistics
   * @param importance this run's importance less the other's, layers × heads; null when either
   *     has none
   * @param layers layers of the grids
   * @param heads heads of the grids
   * @param rows rows in both runs (by id)
   * @param histogram counts of the rows' cosines in {@code bins} equal bins from {@code low} to 1
   * @param low the histogram's lowest edge
   * @param moved the rows whose vectors moved most (lowest cosine first)
   */
  public record Comparison(String other, List<double[]> statistics, double[] importance,
      int layers, int heads, long rows, long[] histogram, double low, List<Moved> moved) {
    public Comparison {
      statistics = List.copyOf(statistics);
      moved = List.copyOf(moved);
    }
  }

  /** A row and the cosine between its two runs' pooled vectors. */
  public record Moved(String id, String text, double cosine) {}
}
