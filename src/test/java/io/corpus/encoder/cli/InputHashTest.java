package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.hash;
import static org.apache.spark.sql.functions.sha2;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;
import static org.apache.spark.sql.functions.xxhash64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.typesafe.config.ConfigFactory;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.config.SettingsParser;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkTestSession;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * A row of vectors is hashed without Spark's {@code to_json}, to the same bits as outputs written
 * with it: an update of an earlier output reuses its rows.
 */
class InputHashTest {
  private static JobSettings.Input input(String lines) {
    return SettingsParser.parse(ConfigFactory.parseString("model.path = \""
        + SharedModels.miniLm() + "\"\noutput.path = out\ninput.path = in\n" + lines), null)
        .input();
  }

  /** The hash of a row of vectors as outputs before this change were written with it. */
  private static Column writtenBefore(String vectors, String mask) {
    List<Column> parts = new ArrayList<>(List.of(xxhash64(col(vectors)).as("c0x"),
        hash(col(vectors)).as("c0m"), col(vectors).isNull().as("c0n")));
    if (mask != null) {
      parts.addAll(List.of(xxhash64(col(mask)).as("c1x"), hash(col(mask)).as("c1m"),
          col(mask).isNull().as("c1n")));
    }
    return sha2(to_json(struct(parts.toArray(new Column[0]))), 256);
  }

  private static Dataset<Row> vectors(SparkSession spark) {
    StructType schema = new StructType()
        .add("id", DataTypes.StringType)
        .add("v", DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType)))
        .add("m", DataTypes.createArrayType(DataTypes.IntegerType));
    Random random = new Random(7);
    List<Row> rows = new ArrayList<>();
    for (int r = 0; r < 40; r++) {
      List<List<Float>> tokens = new ArrayList<>();
      List<Integer> mask = new ArrayList<>();
      for (int t = 0; t < 1 + r % 5; t++) {
        tokens.add(Arrays.asList((float) random.nextGaussian(), -0f, Float.NaN));
        mask.add(t % 3 == 2 ? 0 : 1);
      }
      rows.add(RowFactory.create("r" + r, r == 3 ? null : tokens, r % 4 == 1 ? null : mask));
    }
    return spark.createDataFrame(rows, schema);
  }

  @Test
  void vectorsHashToTheBitsOfToJsonWithAndWithoutAMask() {
    Dataset<Row> frame = vectors(SparkTestSession.get());
    for (String mask : Arrays.asList("m", null)) {
      JobSettings.Input in = input("input.embeddings-column = v\n"
          + (mask == null ? "" : "input.mask-column = m\n"));
      assertEquals(false, UpdatePlan.usesToJson(in));
      List<Row> hashes = frame.select(col("id"), UpdatePlan.inputHash(in).as("now"),
          writtenBefore("v", mask).as("before")).collectAsList();
      assertEquals(40, hashes.size());
      for (Row r : hashes) {
        assertNotNull(r.getString(1));
        assertEquals(r.getString(2), r.getString(1), r.getString(0) + ", mask " + mask);
      }
    }
  }

  @Test
  void onlyTheHashesThatPrintWithToJsonPrepareItsReflection() {
    assertNull(UpdatePlan.prepareInputHash(input("input.embeddings-column = v\n")));
    BackgroundTask<Void> text = UpdatePlan.prepareInputHash(input(
        "input.text-column = text\n"));
    assertNotNull(text);
    // Spark's own class, initialised without error: a Spark that renamed it would leave the
    // preparation failing quietly and planning a second slower
    text.get();
  }
}
