package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.floor;
import static org.apache.spark.sql.functions.least;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.min;

import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.model.HeadStatistics;
import io.corpus.encoder.report.Analytics;
import io.corpus.encoder.report.ReportPage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * The report's tables beyond the head view, read from an output folder: head-stats/ (whole, and
 * per group of stats-by), head-importance/, and the comparison of two runs of the same rows.
 * Each is a few hundred numbers, collected to the driver; the comparison's cosines are computed
 * by Spark over every row in both runs and only their histogram and the lowest come back.
 */
final class ReportTables {
  /** Bins of the cosine histogram. */
  static final int BINS = 20;
  /** Rows the comparison lists, those that moved most. */
  static final int MOVED = 12;

  private ReportTables() {}

  /**
   * head-stats/ as the report reads it.
   *
   * @param overall per layer and head, over every row (the groups merged exactly: sums, then
   *     one division)
   * @param groups per group, when the table is grouped
   */
  record Statistics(List<ReportPage.HeadRow> overall, List<Analytics.Group> groups) {}

  static Statistics statistics(SparkSession spark, String folder, Configuration hadoop) {
    if (!AttentionReport.exists(folder + "/head-stats", hadoop)) {
      return new Statistics(List.of(), List.of());
    }
    Dataset<Row> table = spark.read().parquet(folder + "/head-stats");
    List<String> columns = Arrays.asList(table.columns());
    List<String> by = columns.subList(0, columns.indexOf("layer"));
    Map<String, List<ReportPage.HeadRow>> groups = new TreeMap<>();
    Map<Long, double[]> sums = new TreeMap<>();     // layer and head: rows, then stat sums
    for (Row r : table.orderBy("layer", "head").collectAsList()) {
      int layer = r.getAs("layer");
      int head = r.getAs("head");
      long rows = r.getAs("rows");
      double[] means = new double[HeadStatistics.COUNT];
      double[] sum = sums.computeIfAbsent(((long) layer << 32) | head,
          k -> new double[1 + HeadStatistics.COUNT]);
      sum[0] += rows;
      for (int s = 0; s < means.length; s++) {
        means[s] = r.getAs(HeadStatistics.Stat.values()[s].column());
        sum[1 + s] += means[s] * rows;
      }
      groups.computeIfAbsent(label(r, by), k -> new ArrayList<>())
          .add(new ReportPage.HeadRow(layer, head, rows, means));
    }
    List<ReportPage.HeadRow> overall = new ArrayList<>();
    sums.forEach((key, sum) -> {
      double[] means = new double[HeadStatistics.COUNT];
      for (int s = 0; s < means.length; s++) {
        means[s] = sum[1 + s] / sum[0];
      }
      overall.add(new ReportPage.HeadRow((int) (key >> 32), (int) (long) key, (long) sum[0],
          means));
    });
    List<Analytics.Group> grouped = new ArrayList<>();
    if (!by.isEmpty()) {
      groups.forEach((label, rows) -> grouped.add(new Analytics.Group(label, rows)));
    }
    return new Statistics(overall, grouped);
  }

  /** A group's label: {@code column=value} for each grouping column, a null value as null. */
  private static String label(Row r, List<String> by) {
    List<String> parts = new ArrayList<>();
    for (String column : by) {
      Object value = r.getAs(column);
      parts.add(column + "=" + (value == null ? "null" : value.toString()));
    }
    return String.join(", ", parts);
  }

  /** head-importance/, or null when the folder has none. */
  static Analytics.Importance importance(SparkSession spark, String folder,
      Configuration hadoop) {
    if (!AttentionReport.exists(folder + "/head-importance", hadoop)) {
      return null;
    }
    List<Row> rows = spark.read().parquet(folder + "/head-importance")
        .orderBy("layer", "head").collectAsList();
    int layers = 0;
    int heads = 0;
    long measured = 0;
    for (Row r : rows) {
      layers = Math.max(layers, r.<Integer>getAs("layer") + 1);
      heads = Math.max(heads, r.<Integer>getAs("head") + 1);
      measured = Math.max(measured, r.<Long>getAs("rows"));
    }
    double[] values = new double[layers * heads];
    Arrays.fill(values, Double.NaN);
    for (Row r : rows) {
      if (!r.isNullAt(r.fieldIndex("importance"))) {
        values[r.<Integer>getAs("layer") * heads + r.<Integer>getAs("head")] =
            r.getAs("importance");
      }
    }
    return new Analytics.Importance(layers, heads, measured, values);
  }

  /**
   * This run ({@code folder}, its statistics and importances as already read: {@code mine},
   * {@code a}) against {@code other}, an output folder of the same rows: the per-head
   * statistics and importances less the other's, and the cosine of each row's pooled vectors
   * in the two runs (rows matched by id, and window where texts were cut).
   */
  static Analytics.Comparison compare(SparkSession spark, String folder,
      List<ReportPage.HeadRow> mine, Analytics.Importance a, String other, JobSettings settings,
      Configuration hadoop) {
    if (!AttentionReport.exists(other + "/embeddings", hadoop)) {
      throw new IllegalArgumentException("--compare " + other + " is not a job's output folder "
          + "(it has no embeddings/)");
    }
    List<ReportPage.HeadRow> theirs = statistics(spark, other, hadoop).overall();
    int layers = 0;
    int heads = 0;
    for (ReportPage.HeadRow r : mine) {
      layers = Math.max(layers, r.layer() + 1);
      heads = Math.max(heads, r.head() + 1);
    }
    List<double[]> statistics = new ArrayList<>();
    if (!mine.isEmpty() && mine.size() == theirs.size()) {
      for (int s = 0; s < HeadStatistics.COUNT; s++) {
        double[] grid = new double[layers * heads];
        for (int i = 0; i < mine.size(); i++) {
          ReportPage.HeadRow row = mine.get(i);
          grid[row.layer() * heads + row.head()] = row.means()[s] - theirs.get(i).means()[s];
        }
        statistics.add(grid);
      }
    }
    Analytics.Importance b = importance(spark, other, hadoop);
    double[] importance = null;
    if (a != null && b != null && a.values().length == b.values().length) {
      importance = new double[a.values().length];
      for (int i = 0; i < importance.length; i++) {
        importance[i] = a.values()[i] - b.values()[i];
      }
      layers = a.layers();
      heads = a.heads();
    }
    Cosines cosines = cosines(spark, folder, other, settings);
    return new Analytics.Comparison(other, statistics, importance, layers, heads, cosines.rows,
        cosines.histogram, cosines.low, cosines.moved);
  }

  private record Cosines(long rows, long[] histogram, double low, List<Analytics.Moved> moved) {}

  private static Cosines cosines(SparkSession spark, String folder, String other,
      JobSettings settings) {
    String id = settings.input().idColumn();
    Dataset<Row> mine = spark.read().parquet(folder + "/embeddings");
    Dataset<Row> theirs = spark.read().parquet(other + "/embeddings");
    for (Dataset<Row> table : List.of(mine, theirs)) {
      if (!Arrays.asList(table.columns()).contains("pooled")) {
        throw new IllegalArgumentException("Comparing two runs needs a pooled vector in both "
            + "(output.pooling other than none or splade)");
      }
    }
    List<String> keys = new ArrayList<>(List.of(id));
    if (Arrays.asList(mine.columns()).contains(io.corpus.encoder.config.InputKind.CHUNK_COLUMN)
        && Arrays.asList(theirs.columns())
            .contains(io.corpus.encoder.config.InputKind.CHUNK_COLUMN)) {
      keys.add(io.corpus.encoder.config.InputKind.CHUNK_COLUMN);
    }
    String text = settings.input().textColumn();
    List<Column> mineColumns = new ArrayList<>();
    for (String key : keys) {
      mineColumns.add(col(key));
    }
    mineColumns.add(col("pooled").as("a"));
    mineColumns.add(text.isEmpty() ? lit(null).cast("string").as("text") : col(text).as("text"));
    List<Column> theirColumns = new ArrayList<>();
    for (String key : keys) {
      theirColumns.add(col(key));
    }
    theirColumns.add(col("pooled").as("b"));
    Dataset<Row> both = mine.select(mineColumns.toArray(new Column[0]))
        .join(theirs.select(theirColumns.toArray(new Column[0])),
            scala.jdk.javaapi.CollectionConverters.asScala(keys).toSeq())
        .withColumn("cosine", expr("aggregate(zip_with(a, b, (x, y) -> cast(x as double) * y), "
            + "0D, (s, v) -> s + v) / sqrt(aggregate(a, 0D, (s, x) -> s + cast(x as double) * x)"
            + " * aggregate(b, 0D, (s, y) -> s + cast(y as double) * y))"))
        .select(AttentionReport.idText(mine, id).as("label"), col("text"), col("cosine"))
        .persist(StorageLevel.MEMORY_AND_DISK());
    try {
      Row range = both.agg(min(col("cosine")), org.apache.spark.sql.functions.count(lit(1)))
          .first();
      long rows = range.getLong(1);
      double low = rows == 0 || range.isNullAt(0) ? 0 : Math.min(range.getDouble(0), 0.99);
      low = Math.floor(low * 100) / 100;
      long[] histogram = new long[BINS];
      for (Row r : both.where(col("cosine").isNotNull())
          .select(least(floor(col("cosine").minus(low).divide(1 - low).multiply(BINS)),
              lit(BINS - 1)).cast("int").as("bin"))
          .groupBy("bin").count().collectAsList()) {
        histogram[Math.max(0, r.getInt(0))] += r.getLong(1);
      }
      List<Analytics.Moved> moved = new ArrayList<>();
      for (Row r : both.orderBy(col("cosine").asc_nulls_last(), col("label"))
          .limit(MOVED).collectAsList()) {
        moved.add(new Analytics.Moved(r.getString(0), r.isNullAt(1) ? null
            : r.getString(1).substring(0, Math.min(CorpusMapTable.TEXT_CHARS,
                r.getString(1).length())), r.isNullAt(2) ? Double.NaN : r.getDouble(2)));
      }
      return new Cosines(rows, histogram, low, moved);
    } finally {
      both.unpersist();
    }
  }
}
