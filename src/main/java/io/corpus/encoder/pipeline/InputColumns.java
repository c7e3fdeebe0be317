package io.corpus.encoder.pipeline;

import io.corpus.encoder.config.InputKind;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Where the encoder's inputs sit in a row, resolved once from the input schema on the driver.
 * The constructor is the schema check: a missing column or a wrong type fails here, naming the
 * column, the expected and the actual type, before any task runs.
 *
 * <p>The sequence column is one of: token vectors ({@code array<array<float|double>>}), token ids
 * ({@code array<int|bigint>}, with optional type ids of the same type) or text ({@code string}).
 */
public final class InputColumns implements Serializable {
  private final InputKind kind;
  private final int idOrdinal;
  private final DataType idType;
  private final int sequenceOrdinal;
  private final boolean embeddingsAreDouble;  // EMBEDDINGS: double, not float
  private final boolean idsAreLong;           // IDS: bigint, not int
  private final int typeIdsOrdinal;           // -1 without a type ids column
  private final boolean typeIdsAreLong;
  private final int maskOrdinal;              // -1 without a mask column
  private final boolean maskIsBoolean;
  private final int pairOrdinal;              // TEXT: the second text of a pair; -1 without
  private final List<StringColumn> otherStringColumns;

  /** A column that holds strings (at any depth), by its place in the row. */
  public record StringColumn(int ordinal, String name, DataType type) implements Serializable {}

  /** Token-vector input, as the encoder has always read it. */
  public InputColumns(StructType schema, String idColumn, String embeddingsColumn,
      String maskColumn) {
    this(schema, idColumn, InputKind.EMBEDDINGS, embeddingsColumn, "", maskColumn, "");
  }

  /**
   * @param pairColumn with text: the column of the pair's second text ("" = single texts)
   */
  public InputColumns(StructType schema, String idColumn, InputKind kind, String sequenceColumn,
      String typeIdsColumn, String maskColumn, String pairColumn) {
    this.kind = kind;
    this.idOrdinal = ordinal(schema, idColumn, "id");
    this.idType = schema.fields()[idOrdinal].dataType();
    this.sequenceOrdinal = ordinal(schema, sequenceColumn, role(kind));
    DataType type = schema.fields()[sequenceOrdinal].dataType();
    boolean isDouble = false;
    boolean isLong = false;
    switch (kind) {
      case EMBEDDINGS -> {
        isDouble = isNested(type, DataTypes.DoubleType);
        if (!isDouble && !isNested(type, DataTypes.FloatType)) {
          throw wrongType(sequenceColumn, "array<array<float>> or array<array<double>>", type);
        }
      }
      case IDS -> isLong = integerArray(type, sequenceColumn);
      case TEXT -> {
        if (!DataTypes.StringType.equals(type)) {
          throw wrongType(sequenceColumn, "string", type);
        }
      }
      default -> throw new AssertionError(kind);
    }
    this.embeddingsAreDouble = isDouble;
    this.idsAreLong = isLong;
    if (typeIdsColumn == null || typeIdsColumn.isEmpty()) {
      typeIdsOrdinal = -1;
      typeIdsAreLong = false;
    } else {
      typeIdsOrdinal = ordinal(schema, typeIdsColumn, "type ids");
      typeIdsAreLong = integerArray(schema.fields()[typeIdsOrdinal].dataType(), typeIdsColumn);
    }
    if (maskColumn == null || maskColumn.isEmpty()) {
      maskOrdinal = -1;
      maskIsBoolean = false;
    } else {
      maskOrdinal = ordinal(schema, maskColumn, "mask");
      DataType mask = schema.fields()[maskOrdinal].dataType();
      DataType element = mask instanceof ArrayType a ? a.elementType() : null;
      if (DataTypes.IntegerType.equals(element)) {
        maskIsBoolean = false;
      } else if (DataTypes.BooleanType.equals(element)) {
        maskIsBoolean = true;
      } else {
        throw wrongType(maskColumn, "array<int> or array<boolean>", mask);
      }
    }
    if (pairColumn == null || pairColumn.isEmpty()) {
      pairOrdinal = -1;
    } else {
      pairOrdinal = ordinal(schema, pairColumn, "second text");
      DataType pair = schema.fields()[pairOrdinal].dataType();
      if (!DataTypes.StringType.equals(pair)) {
        throw wrongType(pairColumn, "string", pair);
      }
    }
    List<StringColumn> strings = new ArrayList<>();
    for (int i = 0; i < schema.size(); i++) {
      boolean text = kind == InputKind.TEXT && (i == sequenceOrdinal || i == pairOrdinal);
      if (!text && InvalidUtf8.holdsStrings(schema.fields()[i].dataType())) {
        strings.add(new StringColumn(i, schema.fields()[i].name(),
            schema.fields()[i].dataType()));
      }
    }
    this.otherStringColumns = List.copyOf(strings);
  }

  /** The columns holding strings, the id's included, but not the text a text source reads. */
  public List<StringColumn> otherStringColumns() {
    return otherStringColumns;
  }

  /** Whether each row is a pair of texts, the second in {@link #pairOrdinal}. */
  public boolean hasPair() {
    return pairOrdinal >= 0;
  }

  public int pairOrdinal() {
    return pairOrdinal;
  }

  /**
   * Checks that the input has {@code column} as array&lt;string&gt;: the tokens' text, which the
   * encoder passes through and the report reads.
   */
  public static void requireTokens(StructType schema, String column) {
    DataType type = schema.fields()[ordinal(schema, column, "tokens")].dataType();
    if (!(type instanceof ArrayType array && array.elementType().equals(DataTypes.StringType))) {
      throw wrongType(column, "array<string>", type);
    }
  }

  /**
   * A column a setting names that must be an input column (any type), as the report's colour
   * column and the statistics' groups: every input column is copied to the output.
   */
  public static void requireInputColumn(StructType schema, String setting, String column) {
    if (!Arrays.asList(schema.fieldNames()).contains(column)) {
      throw new IllegalArgumentException(setting + " = " + column + " is not a column of the "
          + "input; its columns are " + Arrays.toString(schema.fieldNames()));
    }
  }

  private static String role(InputKind kind) {
    return switch (kind) {
      case EMBEDDINGS -> "embeddings";
      case IDS -> "token ids";
      case TEXT -> "text";
    };
  }

  /** True for array&lt;bigint&gt;, false for array&lt;int&gt;; anything else is refused. */
  private static boolean integerArray(DataType type, String column) {
    DataType element = type instanceof ArrayType a ? a.elementType() : null;
    if (DataTypes.IntegerType.equals(element)) {
      return false;
    }
    if (DataTypes.LongType.equals(element)) {
      return true;
    }
    throw wrongType(column, "array<int> or array<bigint>", type);
  }

  private static IllegalArgumentException wrongType(String column, String expected,
      DataType actual) {
    return new IllegalArgumentException("Column " + column + " must be of type " + expected
        + " but was " + actual.simpleString());
  }

  private static int ordinal(StructType schema, String column, String role) {
    if (!Arrays.asList(schema.fieldNames()).contains(column)) {
      throw new IllegalArgumentException("The input has no " + role + " column '" + column
          + "'; its columns are " + Arrays.toString(schema.fieldNames()));
    }
    return schema.fieldIndex(column);
  }

  private static boolean isNested(DataType type, DataType element) {
    return type instanceof ArrayType outer && outer.elementType() instanceof ArrayType inner
        && inner.elementType().equals(element);
  }

  public InputKind kind() {
    return kind;
  }

  public int idOrdinal() {
    return idOrdinal;
  }

  public DataType idType() {
    return idType;
  }

  /** The column of token vectors, token ids or text. */
  public int sequenceOrdinal() {
    return sequenceOrdinal;
  }

  public boolean embeddingsAreDouble() {
    return embeddingsAreDouble;
  }

  public boolean idsAreLong() {
    return idsAreLong;
  }

  public boolean hasTypeIds() {
    return typeIdsOrdinal >= 0;
  }

  public int typeIdsOrdinal() {
    return typeIdsOrdinal;
  }

  public boolean typeIdsAreLong() {
    return typeIdsAreLong;
  }

  public boolean hasMask() {
    return maskOrdinal >= 0;
  }

  public int maskOrdinal() {
    return maskOrdinal;
  }

  public boolean maskIsBoolean() {
    return maskIsBoolean;
  }
}
