package io.corpus.encoder.pipeline;

import io.corpus.encoder.text.Entities;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The token classifier's columns: {@code token_labels} (array&lt;string&gt;) and
 * {@code entities}, array&lt;struct&lt;label string, start int, end int, score float, text
 * string&gt;&gt;, to and from Spark's internal values.
 */
final class EntityColumns {
  private EntityColumns() {}

  /** Labels of every position: null at a padding position of an id or vector input. */
  static DataType labelsType() {
    return DataTypes.createArrayType(DataTypes.StringType, true);
  }

  static DataType entitiesType() {
    return DataTypes.createArrayType(new StructType()
        .add("label", DataTypes.StringType, false)
        .add("start", DataTypes.IntegerType, false)
        .add("end", DataTypes.IntegerType, false)
        .add("score", DataTypes.FloatType, false)
        .add("text", DataTypes.StringType, false), false);
  }

  static ArrayData labels(String[] labels) {
    Object[] values = new Object[labels.length];
    for (int t = 0; t < labels.length; t++) {
      values[t] = UTF8String.fromString(labels[t]);
    }
    return new GenericArrayData(values);
  }

  static ArrayData entities(List<Entities.Entity> entities) {
    Object[] values = new Object[entities.size()];
    for (int i = 0; i < values.length; i++) {
      Entities.Entity e = entities.get(i);
      values[i] = new GenericInternalRow(new Object[] {UTF8String.fromString(e.label()),
          e.start(), e.end(), e.score(), UTF8String.fromString(e.text())});
    }
    return new GenericArrayData(values);
  }

  static List<Entities.Entity> read(ArrayData entities) {
    List<Entities.Entity> out = new ArrayList<>();
    for (int i = 0; i < entities.numElements(); i++) {
      InternalRow e = entities.getStruct(i, 5);
      out.add(new Entities.Entity(e.getUTF8String(0).toString(), e.getInt(1), e.getInt(2),
          e.getFloat(3), e.getUTF8String(4).toString()));
    }
    return out;
  }
}
