package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.SparkTestSession;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

class InputIdCheckTest {
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void uniqueWhenNoIdRepeats() {
    assertTrue(unique(DataTypes.StringType, "a", "b", "c"));
    assertTrue(unique(DataTypes.LongType, 1L, 2L, 3L));
  }

  @Test
  void notUniqueWhenAnIdRepeats() {
    assertFalse(unique(DataTypes.StringType, "a", "b", "a"));
    assertFalse(unique(DataTypes.LongType, 7L, 8L, 7L));
  }

  @Test
  void nullIdsAreNotCountedTheyAreNeverWritten() {
    assertTrue(unique(DataTypes.StringType, "a", null, null, "b"));
  }

  private boolean unique(DataType type, Object... ids) {
    List<Row> rows = Arrays.stream(ids).map(id -> RowFactory.create(id, "text")).toList();
    StructType schema = new StructType().add("id", type, true).add("text", DataTypes.StringType);
    Dataset<Row> input = spark.createDataFrame(rows, schema).repartition(3);
    try (InputIdCheck check = InputIdCheck.start(spark.sparkContext(), input, "id")) {
      return check.unique();
    }
  }
}
