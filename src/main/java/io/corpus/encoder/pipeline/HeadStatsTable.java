package io.corpus.encoder.pipeline;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.sum;

import io.corpus.encoder.model.HeadStatistics;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The corpus-wide per-head statistics: the statistics column's per-sequence sums added up per
 * group (of the grouping columns' values), layer and head, then divided by the rows added up.
 * An exact merge (sums and counts, never a mean of means) however the sequences were split into
 * partitions or retried; a null value is a group of its own.
 */
public final class HeadStatsTable {
  private HeadStatsTable() {}

  /**
   * Columns {@code groupBy} (as the encoded rows hold them), layer, head, rows, then one mean
   * per statistic; sorted by them in that order, in one partition: a row per group, layer and
   * head is small, and a global sort would sample the sums and shuffle them a second time.
   */
  public static Dataset<Row> of(Dataset<Row> encoded, String statsColumn, List<String> groupBy) {
    List<Column> aggregates = new ArrayList<>();
    for (HeadStatistics.Stat stat : HeadStatistics.Stat.values()) {
      aggregates.add(sum(col(stat.column())).as(stat.column()));
    }
    List<Column> keys = new ArrayList<>();
    List<Column> groupsAndMaps = new ArrayList<>();
    for (String column : groupBy) {
      keys.add(col(column));
      groupsAndMaps.add(col(column));
    }
    groupsAndMaps.add(explode(col(statsColumn)).as("s"));
    List<Column> groupsAndFields = new ArrayList<>(keys);
    groupsAndFields.add(col("s.*"));
    keys.add(col("layer"));
    keys.add(col("head"));
    Dataset<Row> sums = encoded.select(groupsAndMaps.toArray(new Column[0]))
        .select(groupsAndFields.toArray(new Column[0]))
        .groupBy(keys.toArray(new Column[0]))
        .agg(sum(col("rows")).as("rows"), aggregates.toArray(new Column[0]));
    List<Column> means = new ArrayList<>(keys);
    means.add(col("rows"));
    for (HeadStatistics.Stat stat : HeadStatistics.Stat.values()) {
      means.add(col(stat.column()).divide(col("rows")).as(stat.column()));
    }
    return sums.select(means.toArray(new Column[0])).coalesce(1)
        .sortWithinPartitions(keys.toArray(new Column[0]));
  }
}
