package io.corpus.encoder.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/** Golden inputs as Spark tables, and Spark's nested arrays back to Java arrays. */
public final class SparkInputs {
  private SparkInputs() {}

  /** The case's input Parquet: the fixture's own file, or one written from input.json. */
  public static Path parquet(SparkSession spark, GoldenCase c, Path scratch) {
    if (Files.exists(c.inputParquet())) {
      return c.inputParquet();
    }
    Path out = scratch.resolve(c.name() + "-input.parquet");
    frame(spark, c.inputs(), c.masked()).coalesce(1).write().parquet(out.toString());
    return out;
  }

  /** Rows id, embeddings (array<array<float>>) and, when masked, mask (array<int>). */
  public static Dataset<Row> frame(SparkSession spark, List<GoldenCase.InputRow> inputs,
      boolean masked) {
    StructType schema = new StructType()
        .add("id", DataTypes.StringType)
        .add("embeddings", DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType)));
    if (masked) {
      schema = schema.add("mask", DataTypes.createArrayType(DataTypes.IntegerType));
    }
    List<Row> rows = new ArrayList<>();
    for (GoldenCase.InputRow in : inputs) {
      List<Object> tokens = tokenLists(in.embeddings());
      if (masked) {
        rows.add(RowFactory.create(in.id(), tokens,
            Arrays.stream(in.mask()).boxed().toList()));
      } else {
        rows.add(RowFactory.create(in.id(), tokens));
      }
    }
    return spark.createDataFrame(rows, schema);
  }

  /** (T, E) floats as the nested lists a Spark {@link Row} holds for array<array<float>>. */
  public static List<Object> tokenLists(float[][] embeddings) {
    List<Object> tokens = new ArrayList<>();
    for (float[] token : embeddings) {
      List<Float> values = new ArrayList<>();
      for (float v : token) {
        values.add(v);
      }
      tokens.add(values);
    }
    return tokens;
  }

  /** A Spark array<array<float>> value (a Java list or a Scala sequence) as doubles. */
  public static double[][] matrix(Object value) {
    List<?> rows = list(value);
    double[][] out = new double[rows.size()][];
    for (int i = 0; i < out.length; i++) {
      out[i] = vector(rows.get(i));
    }
    return out;
  }

  /** A Spark array<float> value (a Java list or a Scala sequence) as doubles. */
  public static double[] vector(Object value) {
    List<?> values = list(value);
    double[] out = new double[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = ((Number) values.get(i)).doubleValue();
    }
    return out;
  }

  private static List<?> list(Object value) {
    if (value instanceof List<?> l) {
      return l;
    }
    return scala.jdk.javaapi.CollectionConverters.asJava((scala.collection.Seq<?>) value);
  }
}
