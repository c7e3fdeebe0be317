package io.corpus.encoder.pipeline;

import io.corpus.encoder.model.HeadStatistics;
import io.corpus.encoder.model.TokenBatch;
import io.corpus.encoder.model.TopK;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
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

  /** Element type of the maps column. */
  static StructType mapStruct(boolean topK) {
    StructType s = new StructType()
        .add("layer", DataTypes.IntegerType, false)
        .add("head", DataTypes.IntegerType, false);
    return topK
        ? s.add("top_keys", DataTypes.createArrayType(
                DataTypes.createArrayType(DataTypes.IntegerType, false), false), false)
            .add("top_weights", SparkArrays.floatMatrix(), false)
        : s.add("weights", SparkArrays.floatMatrix(), false);
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

  /** Sequence b's maps: one struct (layer, head, weights (T, T)) per kept map. */
  static ArrayData maps(TokenBatch batch, int b, int length, List<AttentionCollector.Map> maps) {
    int first = batch.firstRow(b);
    int real = batch.length(b);
    Object[] structs = new Object[maps.size()];
    for (int m = 0; m < maps.size(); m++) {
      AttentionCollector.Map map = maps.get(m);
      float[] full = expand(map.weights(), batch, first, real, length);
      structs[m] = new GenericInternalRow(
          new Object[] {map.layer(), map.head(), SparkArrays.matrix(full, length)});
    }
    return new GenericArrayData(structs);
  }

  /**
   * Sequence b's maps in the top-k format: one struct (layer, head, top_keys (T, k'),
   * top_weights (T, k')) per kept map.
   */
  static ArrayData topKMaps(TokenBatch batch, int b, int length,
      List<AttentionCollector.Map> maps, int k) {
    int first = batch.firstRow(b);
    int real = batch.length(b);
    int kept = Math.min(k, real);
    int[] keys = new int[kept];
    float[] weights = new float[kept];
    UnsafeArrayData noInts = UnsafeArrayData.fromPrimitiveArray(new int[0]);
    UnsafeArrayData noFloats = UnsafeArrayData.fromPrimitiveArray(new float[0]);
    Object[] structs = new Object[maps.size()];
    for (int m = 0; m < maps.size(); m++) {
      AttentionCollector.Map map = maps.get(m);
      Object[] keyRows = new Object[length];
      Object[] weightRows = new Object[length];
      Arrays.fill(keyRows, noInts);
      Arrays.fill(weightRows, noFloats);
      for (int i = 0; i < real; i++) {
        int n = TopK.of(map.weights(), i * real, real, kept, keys, weights);
        int[] positions = new int[n];
        for (int j = 0; j < n; j++) {
          positions[j] = batch.position(first + keys[j]);
        }
        int query = batch.position(first + i);
        keyRows[query] = UnsafeArrayData.fromPrimitiveArray(positions);
        weightRows[query] = UnsafeArrayData.fromPrimitiveArray(Arrays.copyOf(weights, n));
      }
      structs[m] = new GenericInternalRow(new Object[] {map.layer(), map.head(),
          new GenericArrayData(keyRows), new GenericArrayData(weightRows)});
    }
    return new GenericArrayData(structs);
  }

  /** Sequence b's rollout, (T_real, T_real) over its real tokens, as (T, T). */
  static ArrayData rollout(float[] weights, TokenBatch batch, int b, int length) {
    return SparkArrays.matrix(expand(weights, batch, batch.firstRow(b), batch.length(b), length),
        length);
  }

  /** (T_real, T_real) weights over real tokens to (T, T) over every position, zeros at padding. */
  private static float[] expand(float[] compact, TokenBatch batch, int first, int real,
      int length) {
    if (real == length) {
      return compact;
    }
    float[] full = new float[length * length];
    for (int i = 0; i < real; i++) {
      int q = batch.position(first + i);
      for (int j = 0; j < real; j++) {
        full[q * length + batch.position(first + j)] = compact[i * real + j];
      }
    }
    return full;
  }
}
