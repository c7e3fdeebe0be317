package io.corpus.encoder.pipeline;

import io.corpus.encoder.model.HeadStatistics;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The attention columns of an encoder output and their Spark types:
 * <ul>
 *   <li>maps: array of struct (layer, head, weights (T, T)), or in the top-k format struct
 *       (layer, head, top_keys (T, k), top_weights (T, k)); empty for a sequence not kept;
 *   <li>stats: array of struct (layer, head, rows, entropy, distance, first_token, self,
 *       previous, next, max_weight), the sequence's sums over its real query rows (divide by
 *       rows for its means; sum over sequences, then divide, for a corpus's);
 *   <li>rollout: (T, T), null for a sequence not kept.
 * </ul>
 */
final class AttentionColumns {
  private AttentionColumns() {}

  static ArrayType floatMatrix() {
    return DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType, false), false);
  }

  /** Element type of the maps column. */
  static StructType mapStruct(boolean topK) {
    StructType s = new StructType()
        .add("layer", DataTypes.IntegerType, false)
        .add("head", DataTypes.IntegerType, false);
    return topK
        ? s.add("top_keys", DataTypes.createArrayType(
                DataTypes.createArrayType(DataTypes.IntegerType, false), false), false)
            .add("top_weights", floatMatrix(), false)
        : s.add("weights", floatMatrix(), false);
  }

  /** Element type of the statistics column: sums per layer and head. */
  static StructType statsStruct() {
    StructType s = new StructType()
        .add("layer", DataTypes.IntegerType, false)
        .add("head", DataTypes.IntegerType, false)
        .add("rows", DataTypes.LongType, false);
    for (HeadStatistics.Stat stat : HeadStatistics.Stat.values()) {
      s = s.add(stat.column(), DataTypes.DoubleType, false);
    }
    return s;
  }

  static DataType statsType() {
    return DataTypes.createArrayType(statsStruct(), false);
  }

  /** The statistics column's value: one struct per layer and head, from the sums array. */
  static ArrayData statsValue(double[] sums, int heads, int rows) {
    int maps = sums.length / HeadStatistics.COUNT;
    Object[] structs = new Object[maps];
    for (int m = 0; m < maps; m++) {
      Object[] values = new Object[3 + HeadStatistics.COUNT];
      values[0] = m / heads;
      values[1] = m % heads;
      values[2] = (long) rows;
      for (int s = 0; s < HeadStatistics.COUNT; s++) {
        values[3 + s] = sums[m * HeadStatistics.COUNT + s];
      }
      structs[m] = new GenericInternalRow(values);
    }
    return new GenericArrayData(structs);
  }
}
