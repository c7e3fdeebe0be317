package io.corpus.encoder.pipeline;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructType;

/**
 * Strings that are not UTF-8. Parquet's strings are UTF-8 by definition, and readers such as
 * DuckDB refuse a file that holds another encoding, yet Spark copies a string's bytes as they are
 * (a binary column cast to string, a file another writer made). Each column holding strings, at
 * any depth (arrays, structs, maps), is checked here; the rejects' copy is repaired with U+FFFD.
 */
final class InvalidUtf8 {
  private InvalidUtf8() {}

  /** Whether values of {@code type} hold strings anywhere. */
  static boolean holdsStrings(DataType type) {
    if (DataTypes.StringType.equals(type)) {
      return true;
    }
    if (type instanceof ArrayType array) {
      return holdsStrings(array.elementType());
    }
    if (type instanceof MapType map) {
      return holdsStrings(map.keyType()) || holdsStrings(map.valueType());
    }
    if (type instanceof StructType struct) {
      for (var field : struct.fields()) {
        if (holdsStrings(field.dataType())) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Where the first string of {@code data}'s value at {@code ordinal} that is not UTF-8 is, and
   * its first bad byte ("element 3: byte 2 of 5 is 0xff"); null when every string is UTF-8.
   */
  static String find(SpecializedGetters data, int ordinal, DataType type) {
    if (data.isNullAt(ordinal)) {
      return null;
    }
    if (DataTypes.StringType.equals(type)) {
      var text = data.getUTF8String(ordinal);
      return text.isValid() ? null : badByte(text.getBytes());
    }
    if (type instanceof ArrayType array) {
      return inArray(data.getArray(ordinal), array.elementType(), "element ");
    }
    if (type instanceof MapType map) {
      MapData m = data.getMap(ordinal);
      String key = inArray(m.keyArray(), map.keyType(), "key ");
      return key != null ? key : inArray(m.valueArray(), map.valueType(), "value ");
    }
    if (type instanceof StructType struct) {
      InternalRow row = data.getStruct(ordinal, struct.size());
      for (int i = 0; i < struct.size(); i++) {
        String found = find(row, i, struct.fields()[i].dataType());
        if (found != null) {
          return "field " + struct.fields()[i].name() + ", " + found;
        }
      }
    }
    return null;
  }

  private static String inArray(ArrayData array, DataType element, String what) {
    if (!holdsStrings(element)) {
      return null;
    }
    for (int i = 0; i < array.numElements(); i++) {
      String found = find(array, i, element);
      if (found != null) {
        return what + i + ", " + found;
      }
    }
    return null;
  }

  /** "byte 2 of 5 is 0xff": the first byte that does not belong to a well-formed sequence. */
  static String badByte(byte[] bytes) {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(Math.max(16, bytes.length));
    CoderResult result = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(in, out, true);
    int at = result.isError() ? in.position() : bytes.length - 1;
    return "byte " + at + " of " + bytes.length + " is 0x"
        + HexFormat.of().toHexDigits(bytes[at]);
  }

  /** {@code value} (of {@code type}, as InternalRow.get gives it) with every string UTF-8. */
  static Object repaired(Object value, DataType type) {
    if (value == null || !holdsStrings(type)) {
      return value;
    }
    if (value instanceof org.apache.spark.unsafe.types.UTF8String text) {
      return text.isValid() ? text : text.makeValid();
    }
    if (type instanceof ArrayType array) {
      return repairedArray((ArrayData) value, array.elementType());
    }
    if (type instanceof MapType map) {
      MapData m = (MapData) value;
      return new ArrayBasedMapData(repairedArray(m.keyArray(), map.keyType()),
          repairedArray(m.valueArray(), map.valueType()));
    }
    if (type instanceof StructType struct) {
      InternalRow row = (InternalRow) value;
      Object[] fields = new Object[struct.size()];
      for (int i = 0; i < fields.length; i++) {
        DataType field = struct.fields()[i].dataType();
        fields[i] = repaired(row.isNullAt(i) ? null : row.get(i, field), field);
      }
      return new GenericInternalRow(fields);
    }
    return value;
  }

  private static ArrayData repairedArray(ArrayData array, DataType element) {
    Object[] values = new Object[array.numElements()];
    for (int i = 0; i < values.length; i++) {
      values[i] = repaired(array.isNullAt(i) ? null : array.get(i, element), element);
    }
    return new GenericArrayData(values);
  }
}
