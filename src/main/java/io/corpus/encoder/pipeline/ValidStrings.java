package io.corpus.encoder.pipeline;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The check of {@link InvalidUtf8} as a Spark expression, for rows that reach the output without
 * passing through the encoder (an update's reused rows): true when every string of the row, at
 * any depth, is UTF-8. A row for which it is false goes through the encoder, which sets it aside
 * with the reason a fresh run gives.
 */
public final class ValidStrings {
  private ValidStrings() {}

  /** True for a row of {@code schema} whose strings are all UTF-8 (nulls pass). */
  public static Column of(StructType schema) {
    List<String> checks = new ArrayList<>();
    for (StructField field : schema.fields()) {
      if (InvalidUtf8.holdsStrings(field.dataType())) {
        checks.add(check(quoted(field.name()), field.dataType(), 0));
      }
    }
    return checks.isEmpty() ? functions.lit(true)
        : functions.expr(String.join(" AND ", checks));
  }

  private static String check(String value, DataType type, int depth) {
    String x = "x" + depth;
    String inner;
    if (DataTypes.StringType.equals(type)) {
      inner = "is_valid_utf8(" + value + ")";
    } else if (type instanceof ArrayType array) {
      inner = "forall(" + value + ", " + x + " -> " + check(x, array.elementType(), depth + 1)
          + ")";
    } else if (type instanceof MapType map) {
      List<String> parts = new ArrayList<>();
      if (InvalidUtf8.holdsStrings(map.keyType())) {
        parts.add("forall(map_keys(" + value + "), " + x + " -> "
            + check(x, map.keyType(), depth + 1) + ")");
      }
      if (InvalidUtf8.holdsStrings(map.valueType())) {
        parts.add("forall(map_values(" + value + "), " + x + " -> "
            + check(x, map.valueType(), depth + 1) + ")");
      }
      inner = String.join(" AND ", parts);
    } else {
      List<String> parts = new ArrayList<>();
      for (StructField field : ((StructType) type).fields()) {
        if (InvalidUtf8.holdsStrings(field.dataType())) {
          parts.add(check(value + "." + quoted(field.name()), field.dataType(), depth));
        }
      }
      inner = String.join(" AND ", parts);
    }
    return "coalesce(" + inner + ", true)";
  }

  private static String quoted(String name) {
    return "`" + name.replace("`", "``") + "`";
  }
}
