package io.corpus.encoder.pipeline;

import io.corpus.encoder.model.TokenBatch;
import java.io.Serializable;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.unsafe.Platform;

/**
 * Builds output rows as Spark internal rows: the input's kept columns, then the embeddings
 * (T, E), the pooled vector (E) and the attention maps, from primitive arrays without boxing.
 * Padding positions come back as zero vectors and zero rows and columns of the maps.
 */
final class OutputRows implements Serializable {
  private final int[] keptOrdinals;
  private final DataType[] keptTypes;
  private final boolean withPooled;
  private final boolean withAttention;

  OutputRows(int[] keptOrdinals, DataType[] keptTypes, boolean withPooled, boolean withAttention) {
    this.keptOrdinals = keptOrdinals;
    this.keptTypes = keptTypes;
    this.withPooled = withPooled;
    this.withAttention = withAttention;
  }

  /**
   * The output row of sequence b of the batch, whose input row is {@code input} and whose full
   * length (padding included) is {@code length}.
   */
  InternalRow build(InternalRow input, TokenBatch batch, int b, int length, float[] pooled,
      List<AttentionCollector.Map> maps) {
    int columns = keptOrdinals.length + 1 + (withPooled ? 1 : 0) + (withAttention ? 1 : 0);
    Object[] values = new Object[columns];
    int c = 0;
    for (int i = 0; i < keptOrdinals.length; i++) {
      values[c++] = input.get(keptOrdinals[i], keptTypes[i]);
    }
    values[c++] = embeddings(batch, b, length);
    if (withPooled) {
      values[c++] = UnsafeArrayData.fromPrimitiveArray(pooled);
    }
    if (withAttention) {
      values[c] = attention(batch, b, length, maps);
    }
    return new GenericInternalRow(values);
  }

  /** (T, E): real tokens from the batch, zero vectors at padding. */
  private static ArrayData embeddings(TokenBatch batch, int b, int length) {
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

  /** One struct (layer, head, weights (T, T)) per kept map. */
  private static ArrayData attention(TokenBatch batch, int b, int length,
      List<AttentionCollector.Map> maps) {
    int first = batch.firstRow(b);
    int real = batch.length(b);
    Object[] structs = new Object[maps.size()];
    for (int m = 0; m < maps.size(); m++) {
      AttentionCollector.Map map = maps.get(m);
      float[] full = expand(map.weights(), batch, first, real, length);
      Object[] rows = new Object[length];
      for (int q = 0; q < length; q++) {
        rows[q] = floats(full, q * length, length);
      }
      structs[m] = new GenericInternalRow(
          new Object[] {map.layer(), map.head(), new GenericArrayData(rows)});
    }
    return new GenericArrayData(structs);
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

  /** {@code count} floats of {@code source} from {@code offset}, as a Spark array. */
  private static UnsafeArrayData floats(float[] source, int offset, int count) {
    int byteOffset = Math.toIntExact(Platform.FLOAT_ARRAY_OFFSET + 4L * offset);
    return UnsafeArrayData.fromPrimitiveArray(source, byteOffset, count, 4);
  }
}
