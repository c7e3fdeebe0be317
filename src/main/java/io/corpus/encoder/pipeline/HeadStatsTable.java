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
 * layer and head, then divided by the rows added up. An exact merge (sums and counts, never a
 * mean of means) however the sequences were split into partitions or retried.
 */
public final class HeadStatsTable {
  private HeadStatsTable() {}

  /** Columns layer, head, rows, then one mean per statistic; sorted by layer and head. */
  public static Dataset<Row> of(Dataset<Row> encoded, String statsColumn) {
    List<Column> aggregates = new ArrayList<>();
    for (HeadStatistics.Stat stat : HeadStatistics.Stat.values()) {
      aggregates.add(sum(col(stat.column())).as(stat.column()));
    }
    Dataset<Row> sums = encoded.select(explode(col(statsColumn)).as("s")).select(col("s.*"))
        .groupBy("layer", "head")
        .agg(sum(col("rows")).as("rows"), aggregates.toArray(new Column[0]));
    List<Column> means = new ArrayList<>(List.of(col("layer"), col("head"), col("rows")));
    for (HeadStatistics.Stat stat : HeadStatistics.Stat.values()) {
      means.add(col(stat.column()).divide(col("rows")).as(stat.column()));
    }
    return sums.select(means.toArray(new Column[0])).orderBy("layer", "head");
  }
}
