package io.corpus.encoder.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

class InputColumnsTest {
  private static final StructType SCHEMA = new StructType()
      .add("id", DataTypes.StringType)
      .add("tokens", DataTypes.createArrayType(DataTypes.StringType))
      .add("ids", DataTypes.createArrayType(DataTypes.IntegerType));

  @Test
  void tokensMustBeAnArrayOfStringsNamedInTheInput() {
    InputColumns.requireTokens(SCHEMA, "tokens");
    assertEquals("Column ids must be of type array<string> but was array<int>",
        assertThrows(IllegalArgumentException.class,
            () -> InputColumns.requireTokens(SCHEMA, "ids")).getMessage());
    assertEquals("The input has no tokens column 'words'; its columns are [id, tokens, ids]",
        assertThrows(IllegalArgumentException.class,
            () -> InputColumns.requireTokens(SCHEMA, "words")).getMessage());
  }
}
