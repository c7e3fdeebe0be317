package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.pipeline.EncoderTransformer;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
import io.corpus.encoder.weights.WeightsException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sequence-classification folders (src/test/resources/classifier-cases, made by
 * jobs/samples/make_classifier_cases.py: random checkpoints saved as BertForSequenceClassification, and a
 * float64 PyTorch port's logits): the job and the Transformer give the same logits, the scores the
 * pipeline would, and the label of the largest logit.
 */
class ClassifierFoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  private static Path folder(String name) {
    return Path.of("src", "test", "resources", "classifier-cases", name).toAbsolutePath();
  }

  private static JsonNode expected(String name) throws Exception {
    return new ObjectMapper().readTree(folder(name).resolve("expected.json").toFile());
  }

  private Dataset<Row> ids(SparkSession spark, JsonNode expected) {
    List<Row> rows = new ArrayList<>();
    for (JsonNode row : expected) {
      List<Integer> ids = new ArrayList<>();
      row.get("input_ids").forEach(id -> ids.add(id.asInt()));
      rows.add(RowFactory.create(row.get("id").asText(), ids));
    }
    StructType schema = new StructType().add("id", DataTypes.StringType)
        .add("ids", DataTypes.createArrayType(DataTypes.IntegerType));
    return spark.createDataFrame(rows, schema).repartition(2);
  }

  /** Logits and scores within 1e-4 of the reference (relative to the row's norm), same label. */
  private static void assertMatches(JsonNode expected, List<Row> rows, boolean withLabel) {
    Map<String, Row> byId = new HashMap<>();
    rows.forEach(r -> byId.put(r.getAs("id"), r));
    assertEquals(expected.size(), byId.size());
    double worst = 0;
    for (JsonNode want : expected) {
      Row got = byId.get(want.get("id").asText());
      for (String column : List.of("logits", "scores")) {
        worst = Math.max(worst, Tolerances.relativeError(want.get(column),
            got.getList(got.fieldIndex(column))));
      }
      if (withLabel) {
        assertEquals(want.get("label").asText(), got.getAs("label"), want.get("id").asText());
      } else {
        assertFalse(Arrays.asList(got.schema().fieldNames()).contains("label"));
      }
    }
    System.out.printf("ClassifierFoldersTest: worst relative error of logits and scores %.2e%n",
        worst);
    assertTrue(worst <= TOLERANCE, "worst relative error " + worst);
  }


  @ParameterizedTest
  @ValueSource(strings = {"sentiment-3-labels", "cross-encoder-1-label"})
  void jobGivesTheReferenceLogitsScoresAndLabels(String name) throws Exception {
    SparkSession spark = SparkTestSession.get();
    JsonNode expected = expected(name);
    Path input = tmp.resolve("ids.parquet");
    ids(spark, expected).write().parquet(input.toString());
    Path output = tmp.resolve("out");
    Path config = tmp.resolve("job.conf");
    Files.writeString(config, String.join("\n",
        "input { path = \"" + input + "\", ids-column = ids }",
        "model.path = \"" + folder(name) + "\"",
        "output { path = \"" + output + "\", token-embeddings = false }",
        "execution { progress = false, batch-tokens = 100 }"));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = new EncodeCommand(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString()});
    assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
    List<Row> rows = spark.read().parquet(output.resolve("embeddings").toString())
        .collectAsList();
    assertMatches(expected, rows, expected.get(0).get("scores").size() > 1);
  }

  @Test
  void transformerGivesTheSameAndRefusesAHeadThatIsNotTheLabels() throws Exception {
    SparkSession spark = SparkTestSession.get();
    JsonNode expected = expected("sentiment-3-labels");
    List<Row> rows = new EncoderTransformer().setModelPath(folder("sentiment-3-labels").toString())
        .setIdsCol("ids").setOutputCol("").transform(ids(spark, expected)).collectAsList();
    assertMatches(expected, rows, true);

    Path wrong = Files.createDirectories(tmp.resolve("two-labels"));
    Files.createSymbolicLink(wrong.resolve("model.safetensors"),
        folder("sentiment-3-labels").resolve("model.safetensors"));
    String config = Files.readString(folder("sentiment-3-labels").resolve("config.json"));
    Files.writeString(wrong.resolve("config.json"), config.replace(
        "\"2\": \"positive\"", "\"2\": \"positive\", \"3\": \"mixed\""));
    WeightsException refused = assertThrows(WeightsException.class,
        () -> new EncoderTransformer().setModelPath(wrong.toString()).setIdsCol("ids").model());
    assertEquals("Tensor classifier.weight has 3 rows but config.json has 4 labels (num_labels / "
        + "id2label): " + wrong, refused.getMessage());
  }

  /** A classifier folder with all-MiniLM-L6-v2's tokenizer.json beside its files. */
  private Path withTokenizer(String name) throws Exception {
    Path folder = Files.createDirectories(tmp.resolve(name));
    for (String file : List.of("config.json", "model.safetensors")) {
      Files.createSymbolicLink(folder.resolve(file), folder(name).resolve(file));
    }
    Files.createSymbolicLink(folder.resolve("tokenizer.json"),
        io.corpus.encoder.testing.SharedModels.miniLm().resolve("tokenizer.json"));
    return folder;
  }

  /** (query, passage) pairs scored by the head, as the reference scores their ids and types. */
  @ParameterizedTest
  @ValueSource(strings = {"sentiment-3-labels", "cross-encoder-1-label"})
  void pairsAreScoredAsTheReferenceScoresTheirIds(String name) throws Exception {
    SparkSession spark = SparkTestSession.get();
    JsonNode pairs = new ObjectMapper().readTree(
        Path.of("src/test/resources/pairs/minilm-32.json").toFile());
    List<Row> rows = new ArrayList<>();
    for (JsonNode p : pairs) {
      rows.add(RowFactory.create(p.get("id").asText(), p.get("a").asText(), p.get("b").asText()));
    }
    StructType schema = new StructType().add("id", DataTypes.StringType)
        .add("query", DataTypes.StringType).add("passage", DataTypes.StringType);
    Path input = tmp.resolve("pairs.parquet");
    spark.createDataFrame(rows, schema).coalesce(1).write().parquet(input.toString());
    Path output = tmp.resolve("pairs-out");
    Path config = tmp.resolve("pairs.conf");
    Files.writeString(config, String.join("\n",
        "input { path = \"" + input + "\", text-pair-columns = [query, passage],",
        "  max-tokens = 32 }",
        "model.path = \"" + withTokenizer(name) + "\"",
        "output { path = \"" + output + "\", token-embeddings = false }",
        "execution.progress = false"));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = new EncodeCommand(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString()});
    assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
    JsonNode expected = new ObjectMapper().readTree(folder(name).resolve("pairs.json").toFile());
    assertMatches(expected, spark.read().parquet(output.resolve("embeddings").toString())
        .collectAsList(), expected.get(0).get("scores").size() > 1);
  }
}
