package io.corpus.encoder.pipeline;

import io.corpus.encoder.model.TokenBatch;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.Platform;

/** Float vectors and matrices as Spark's array values, copied from primitive arrays unboxed. */
final class SparkArrays {
  private SparkArrays() {}

  /** array&lt;array&lt;float&gt;&gt;, no nulls. */
  static ArrayType floatMatrix() {
    return DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType, false), false);
  }

  /** {@code count} floats of {@code source} from {@code offset}, as a Spark array. */
  static UnsafeArrayData floats(float[] source, int offset, int count) {
    int byteOffset = Math.toIntExact(Platform.FLOAT_ARRAY_OFFSET + 4L * offset);
    return UnsafeArrayData.fromPrimitiveArray(source, byteOffset, count, 4);
  }

  /** (count, width) row-major values as array&lt;array&lt;float&gt;&gt;. */
  static ArrayData rows(float[] values, int count, int width) {
    Object[] rows = new Object[count];
    for (int r = 0; r < count; r++) {
      rows[r] = floats(values, r * width, width);
    }
    return new GenericArrayData(rows);
  }

  /** A (T, T) row-major matrix as array&lt;array&lt;float&gt;&gt;. */
  static ArrayData matrix(float[] values, int length) {
    return rows(values, length, length);
  }

  /** Sequence b's (T, E) token vectors: real tokens from the batch, zero vectors at padding. */
  static ArrayData tokenVectors(TokenBatch batch, int b, int length) {
    int width = batch.width();
    UnsafeArrayData zero = null;
    Object[] tokens = new Object[length];
    int first = batch.firstRow(b);
    int real = batch.length(b);
    for (int r = 0; r < real; r++) {
      tokens[batch.position(first + r)] = floats(batch.tokens(), (first + r) * width, width);
    }
    for (int t = 0; t < length; t++) {
      if (tokens[t] == null) {
        zero = zero != null ? zero : UnsafeArrayData.fromPrimitiveArray(new float[width]);
        tokens[t] = zero;
      }
    }
    return new GenericArrayData(tokens);
  }
}
