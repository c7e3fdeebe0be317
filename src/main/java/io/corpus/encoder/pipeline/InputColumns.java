package io.corpus.encoder.pipeline;

import java.io.Serializable;
import java.util.Arrays;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Where the encoder's inputs sit in a row, resolved once from the input schema on the driver.
 * The constructor is the schema check: a missing column or a wrong type fails here, naming the
 * column, the expected and the actual type, before any task runs.
 */
public final class InputColumns implements Serializable {
  private final int idOrdinal;
  private final DataType idType;
  private final int embeddingsOrdinal;
  private final boolean embeddingsAreDouble;
  private final int maskOrdinal;            // -1 without a mask column
  private final boolean maskIsBoolean;

  public InputColumns(StructType schema, String idColumn, String embeddingsColumn,
      String maskColumn) {
    this.idOrdinal = ordinal(schema, idColumn, "id");
    this.idType = schema.fields()[idOrdinal].dataType();
    this.embeddingsOrdinal = ordinal(schema, embeddingsColumn, "embeddings");
    DataType embeddings = schema.fields()[embeddingsOrdinal].dataType();
    if (isNested(embeddings, DataTypes.FloatType)) {
      embeddingsAreDouble = false;
    } else if (isNested(embeddings, DataTypes.DoubleType)) {
      embeddingsAreDouble = true;
    } else {
      throw new IllegalArgumentException("Column " + embeddingsColumn + " must be of type "
          + "array<array<float>> or array<array<double>> but was " + embeddings.simpleString());
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
        throw new IllegalArgumentException("Column " + maskColumn + " must be of type array<int> "
            + "or array<boolean> but was " + mask.simpleString());
      }
    }
  }

  /**
   * Checks that the input has {@code column} as array&lt;string&gt;: the tokens' text, which the
   * encoder passes through and the report reads.
   */
  public static void requireTokens(StructType schema, String column) {
    DataType type = schema.fields()[ordinal(schema, column, "tokens")].dataType();
    if (!(type instanceof ArrayType array && array.elementType().equals(DataTypes.StringType))) {
      throw new IllegalArgumentException("Column " + column + " must be of type array<string> "
          + "but was " + type.simpleString());
    }
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

  public int idOrdinal() {
    return idOrdinal;
  }

  public DataType idType() {
    return idType;
  }

  public int embeddingsOrdinal() {
    return embeddingsOrdinal;
  }

  public boolean embeddingsAreDouble() {
    return embeddingsAreDouble;
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
