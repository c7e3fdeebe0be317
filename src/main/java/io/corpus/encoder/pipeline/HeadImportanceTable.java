package io.corpus.encoder.pipeline;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.posexplode;
import static org.apache.spark.sql.functions.sum;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * head-importance/: per layer and head, the mean over the measured rows of their importance
 * (the importance column: L · H values a row, null where a row was not measured), summed and
 * counted in one aggregation, so the merge is exact however the rows were split. One row for
 * every head of every layer; a head no row measured has rows 0 and a null importance.
 */
public final class HeadImportanceTable {
  private HeadImportanceTable() {}

  /** Columns layer, head, rows (long), importance (double); sorted by layer and head. */
  public static Dataset<Row> of(Dataset<Row> encoded, String importanceColumn, int layers,
      int heads) {
    List<Row> sums = encoded.where(col(importanceColumn).isNotNull())
        .select(posexplode(col(importanceColumn)).as(new String[] {"at", "value"}))
        .groupBy("at").agg(count(col("value")).as("rows"), sum(col("value")).as("sum"))
        .collectAsList();
    long[] rows = new long[layers * heads];
    double[] total = new double[layers * heads];
    for (Row r : sums) {
      int at = r.<Integer>getAs("at");
      rows[at] = r.<Long>getAs("rows");
      total[at] = r.<Double>getAs("sum");
    }
    List<Row> table = new ArrayList<>();
    for (int at = 0; at < rows.length; at++) {
      table.add(RowFactory.create(at / heads, at % heads, rows[at],
          rows[at] == 0 ? null : total[at] / rows[at]));
    }
    StructType schema = new StructType()
        .add("layer", DataTypes.IntegerType, false)
        .add("head", DataTypes.IntegerType, false)
        .add("rows", DataTypes.LongType, false)
        .add("importance", DataTypes.DoubleType, true);
    return encoded.sparkSession().createDataFrame(table, schema);
  }
}
