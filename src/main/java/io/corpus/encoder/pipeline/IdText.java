package io.corpus.encoder.pipeline;

import java.util.HexFormat;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;

/**
 * A row id as text, the same on every run and executor: what sampling hashes, what
 * {@code attention.ids} lists and what messages name. Binary ids are written in lower-case
 * hexadecimal (Java's own text for a byte array, {@code [B@1f2e3d}, changes from run to run);
 * everything else as Spark's value prints.
 */
final class IdText {
  private IdText() {}

  static String of(InternalRow row, int ordinal, DataType type) {
    if (row.isNullAt(ordinal)) {
      return "null";
    }
    if (type instanceof BinaryType) {
      return HexFormat.of().formatHex(row.getBinary(ordinal));
    }
    return String.valueOf(row.get(ordinal, type));
  }
}
