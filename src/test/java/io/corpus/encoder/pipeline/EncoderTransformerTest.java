package io.corpus.encoder.pipeline;

import static io.corpus.encoder.testing.Tolerances.assertMapClose;
import static io.corpus.encoder.testing.Tolerances.assertVectorsClose;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.transform;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The encoder as a Spark ML Transformer, the way a notebook applies it to a DataFrame. */
class EncoderTransformerTest {
  static List<GoldenCase> cases() {
    return GoldenCase.all();
  }

  static EncoderTransformer transformerFor(GoldenCase c) {
    return new EncoderTransformer()
        .setWeightsPath(c.weights().toString())
        .setNaming(c.naming().configName())
        .setHeads(c.heads())
        .setActivation(c.settings().architecture().activation().configName())
        .setNormFirst(c.settings().architecture().norms().placement().first())
        .setFinalNorm(c.settings().architecture().norms().finalNorm())
        .setLayerNormEps(c.settings().architecture().norms().eps())
        .setCausal(c.settings().architecture().causal())
        .setWindow(c.settings().window().setting())
        .setPositional(c.settings().positional().configName())
        .setMaskCol(c.masked() ? "mask" : "");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void transformerMatchesPyTorch(GoldenCase c) {
    SparkSession spark = SparkTestSession.get();
    Dataset<Row> input = SparkInputs.frame(spark, c.inputs(), c.masked()).repartition(2);
    List<Row> rows = transformerFor(c).setAttentionCol("attention").setBatchTokens(20)
        .transform(input).collectAsList();
    assertEquals(c.expected().size(), rows.size());
    for (Row row : rows) {
      String id = row.getAs("id");
      GoldenCase.ExpectedRow expected = c.expected().stream()
          .filter(e -> e.id().equals(id)).findFirst().orElseThrow();
      assertVectorsClose(expected.embeddings(), SparkInputs.matrix(row.getAs("embeddings")),
          c + " " + id);
      assertVectorsClose(new double[][] {expected.pooledMean()},
          new double[][] {SparkInputs.vector(row.getAs("pooled"))}, c + " " + id + " pooled");
      List<Row> maps = row.getList(row.fieldIndex("attention"));
      assertEquals(c.layers() * c.heads(), maps.size());
      for (Row map : maps) {
        int layer = map.getInt(0);
        int head = map.getInt(1);
        assertMapClose(expected.attention()[layer][head], SparkInputs.matrix(map.get(2)),
            c + " " + id + " layer " + layer + " head " + head);
      }
    }
  }

  @Test
  void doubleEmbeddingsAndBooleanMaskGiveTheSameOutputs() {
    GoldenCase c = GoldenCase.named("padded-prenorm-gelu");
    SparkSession spark = SparkTestSession.get();
    Dataset<Row> floats = SparkInputs.frame(spark, c.inputs(), true);
    Dataset<Row> doubles = floats
        .withColumn("embeddings", col("embeddings").cast(
            DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.DoubleType))))
        .withColumn("mask", transform(col("mask"), m -> m.equalTo(1)));
    List<Row> a = transformerFor(c).transform(floats).orderBy("id").collectAsList();
    List<Row> b = transformerFor(c).transform(doubles).orderBy("id").collectAsList();
    for (int i = 0; i < a.size(); i++) {
      assertVectorsClose(SparkInputs.matrix(a.get(i).getAs("embeddings")),
          SparkInputs.matrix(b.get(i).getAs("embeddings")), "row " + i);
    }
  }

  @Test
  void outputColumnsAreTheInputsWithoutEmbeddingsThenTheResults() {
    GoldenCase c = GoldenCase.named("padded-prenorm-gelu");
    Dataset<Row> input = SparkInputs.frame(SparkTestSession.get(), c.inputs(), true);
    assertEquals(List.of("id", "mask", "embeddings", "pooled"),
        Arrays.asList(transformerFor(c).transformSchema(input.schema()).fieldNames()));
    assertEquals(List.of("id", "mask", "embeddings"), Arrays.asList(
        transformerFor(c).setPooling("none").transformSchema(input.schema()).fieldNames()));
  }

  @Test
  void wrongSchemaIsRefusedOnTheDriverNamingTheColumn() {
    GoldenCase c = GoldenCase.named("seed-shapes");
    Dataset<Row> input = SparkInputs.frame(SparkTestSession.get(), c.inputs(), false);
    Dataset<Row> strings = input.withColumn("embeddings",
        col("embeddings").cast(DataTypes.createArrayType(DataTypes.StringType)));
    IllegalArgumentException wrongType = assertThrows(IllegalArgumentException.class,
        () -> transformerFor(c).transform(strings));
    assertEquals("Column embeddings must be of type array<array<float>> or array<array<double>> "
        + "but was array<string>", wrongType.getMessage());

    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
        () -> transformerFor(c).setInputCol("vectors").transform(input));
    assertTrue(missing.getMessage().startsWith("The input has no embeddings column 'vectors'"),
        missing.getMessage());

    IllegalArgumentException badMask = assertThrows(IllegalArgumentException.class,
        () -> transformerFor(c).setMaskCol("id").transform(input));
    assertEquals("Column id must be of type array<int> or array<boolean> but was string",
        badMask.getMessage());
  }

  @Test
  void invalidRowFailsTheJobNamingTheRowUnderError() {
    GoldenCase c = GoldenCase.named("seed-shapes");
    SparkSession spark = SparkTestSession.get();
    Dataset<Row> input = SparkInputs.frame(spark, c.inputs().subList(0, 1), false)
        .withColumn("embeddings", org.apache.spark.sql.functions.slice(col("embeddings"), 1, 0));
    Exception e = assertThrows(Exception.class,
        () -> transformerFor(c).transform(input).collectAsList());
    Throwable cause = e;
    while (cause != null && !(cause instanceof InvalidRowException)) {
      cause = cause.getCause();
    }
    assertTrue(cause != null, "an InvalidRowException in " + e);
    assertEquals("Invalid input row id=s0: empty-embeddings: embeddings hold no token",
        cause.getMessage());
  }

  @Test
  void aCopyKeepsTheLoadedModelAndAReleasedTransformerRunsAgain() {
    GoldenCase c = GoldenCase.named("seed-shapes");
    EncoderTransformer t = transformerFor(c);
    LoadedModel loaded = t.model();
    EncoderTransformer copy = t.copy(org.apache.spark.ml.param.ParamMap.empty());
    assertSame(loaded, copy.model(), "the copy does not read the weights again");
    assertEquals(t.explainParams(), copy.explainParams());

    Dataset<Row> input = SparkInputs.frame(SparkTestSession.get(), c.inputs(), c.masked());
    List<Row> first = t.setOutputCol("").transform(input).orderBy("id").collectAsList();
    t.release();
    List<Row> again = t.transform(input).orderBy("id").collectAsList();
    assertEquals(first, again);
  }

  @Test
  void badParamsAreRefusedWhenSetAndMissingOnesByTransformSchema() {
    GoldenCase c = GoldenCase.named("seed-shapes");
    IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
        () -> new EncoderTransformer().setAttentionLayers(new int[] {0, -1}));
    assertTrue(negative.getMessage().contains("attentionLayers given invalid value"),
        negative.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> new EncoderTransformer().setAttentionHeads(new int[] {-2}));
    StructType schema = SparkInputs.frame(SparkTestSession.get(), c.inputs(), false).schema();
    assertEquals("modelPath (a Hugging Face model folder) or weightsPath (a safetensors file of "
        + "encoder layers) must be set", assertThrows(IllegalArgumentException.class,
            () -> new EncoderTransformer().transformSchema(schema)).getMessage());
    assertEquals("Param heads must be set (the number of attention heads), or modelPath to a "
        + "model folder", assertThrows(IllegalArgumentException.class,
            () -> new EncoderTransformer().setWeightsPath(c.weights().toString())
                .transformSchema(schema)).getMessage());
  }
}
