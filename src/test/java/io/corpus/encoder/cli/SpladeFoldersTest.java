package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.commons.io.FileUtils;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SPLADE folders (src/test/resources/splade-cases, made by jobs/samples/make_splade_cases.py:
 * random BertForMaskedLM checkpoints saved as the Hub saves them, the decoder tied or not, with
 * a SparseEncoder's modules: max and relu, sum and log1p_relu), through jobs/encode, against a
 * float64 port: the same vocabulary ids, values within 1e-4 of the vector's norm.
 */
class SpladeFoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  private static Path folder(String name) {
    return Path.of("src", "test", "resources", "splade-cases", name).toAbsolutePath();
  }

  private static JsonNode expected(String name) throws Exception {
    return new ObjectMapper().readTree(folder(name).resolve("texts.json").toFile());
  }

  private Path texts(JsonNode expected) {
    Path input = tmp.resolve("texts.parquet");
    if (!Files.exists(input)) {
      List<Row> rows = new ArrayList<>();
      expected.forEach(r -> rows.add(RowFactory.create(r.get("id").asText(),
          r.get("text").asText())));
      SparkTestSession.get().createDataFrame(rows, new StructType()
          .add("id", DataTypes.StringType).add("text", DataTypes.StringType))
          .coalesce(1).write().parquet(input.toString());
    }
    return input;
  }

  private Map<String, Row> job(Path model, Path input, String extra) throws Exception {
    Path output = tmp.resolve("out-" + model.getFileName() + extra.hashCode());
    JobRunner.Result run = JobRunner.run(tmp,
        "input { path = \"" + input + "\", text-column = text }",
        "model.path = \"" + model + "\"", "output.path = \"" + output + "\"", extra);
    assertEquals(0, run.code(), run.error());
    Map<String, Row> byId = new HashMap<>();
    SparkTestSession.get().read().parquet(output.resolve("embeddings").toString())
        .collectAsList().forEach(r -> byId.put(r.getAs("id"), r));
    return byId;
  }

  /** A SparseEncoder folder needs nothing set: its SpladePooling makes the job's pooling. */
  @ParameterizedTest
  @ValueSource(strings = {"splade-max", "splade-sum"})
  void sparseVectorsAreThePorts(String name) throws Exception {
    JsonNode expected = expected(name);
    Map<String, Row> rows = job(folder(name), texts(expected), "");
    double worst = 0;
    for (JsonNode want : expected) {
      Row got = rows.get(want.get("id").asText());
      assertFalse(List.of(got.schema().fieldNames()).contains("pooled"), "no dense vector");
      assertEquals(ints(want.get("input_ids")), got.getList(got.fieldIndex("input_ids")));
      assertEquals(ints(want.get("sparse_indices")), got.getList(got.fieldIndex(
          "sparse_indices")), want.get("id").asText());
      worst = Math.max(worst, Tolerances.relativeError(want.get("sparse_values"),
          got.getList(got.fieldIndex("sparse_values"))));
    }
    System.out.printf("%s: worst ‖Δ‖/‖ref‖ of sparse values %.2e%n", name, worst);
    assertTrue(worst <= TOLERANCE, "worst " + worst);
  }

  /**
   * With model.precision = int8 the transform and the decoder products are int8 too: each sparse
   * vector within cosine 1 − 1e-3 of the port's (the encoder's int8 errors and the decoder's
   * add up; relu moves a few near-zero entries in or out, so indices are not held equal).
   */
  @ParameterizedTest
  @ValueSource(strings = {"splade-max", "splade-sum"})
  void sparseVectorsInInt8StayCloseToThePorts(String name) throws Exception {
    JsonNode expected = expected(name);
    Map<String, Row> rows = job(folder(name), texts(expected), "model.precision = int8");
    double worst = 0;
    for (JsonNode want : expected) {
      Map<Integer, Double> reference = new HashMap<>();
      for (int i = 0; i < want.get("sparse_indices").size(); i++) {
        reference.put(want.get("sparse_indices").get(i).asInt(),
            want.get("sparse_values").get(i).asDouble());
      }
      Row got = rows.get(want.get("id").asText());
      List<Integer> indices = got.getList(got.fieldIndex("sparse_indices"));
      List<Float> values = got.getList(got.fieldIndex("sparse_values"));
      double dot = 0;
      double norm = 0;
      double referenceNorm = 0;
      for (int i = 0; i < indices.size(); i++) {
        dot += values.get(i) * reference.getOrDefault(indices.get(i), 0.0);
        norm += values.get(i) * values.get(i);
      }
      for (double v : reference.values()) {
        referenceNorm += v * v;
      }
      worst = Math.max(worst, 1 - dot / Math.sqrt(norm * referenceNorm));
    }
    System.out.printf("%s in int8: worst 1 - cosine of sparse vectors %.2e%n", name, worst);
    assertTrue(worst <= 1e-3, "worst " + worst);
  }

  /**
   * A BertForMaskedLM folder without sentence-transformers' modules, with output.pooling =
   * splade: max and relu (and the 64 tokens its sentence_bert_config.json gave, now set);
   * output.sparse-top-k keeps the 16 largest, their ids ascending.
   */
  @Test
  void aMaskedLmFolderWithPoolingSpladeKeepsTheLargestValues() throws Exception {
    Path plain = tmp.resolve("bert-mlm");
    FileUtils.copyDirectory(folder("splade-max").toFile(), plain.toFile());
    for (String file : List.of("modules.json", "config_sentence_transformers.json")) {
      Files.delete(plain.resolve(file));
    }
    FileUtils.deleteDirectory(plain.resolve("1_SpladePooling").toFile());
    JsonNode expected = expected("splade-max");
    Map<String, Row> rows = job(plain, texts(expected),
        "output { pooling = splade, sparse-top-k = 16 }\ninput.max-tokens = 64");
    for (JsonNode want : expected) {
      List<Integer> indices = ints(want.get("sparse_indices"));
      List<Double> values = new ArrayList<>();
      want.get("sparse_values").forEach(v -> values.add(v.asDouble()));
      List<Integer> top = IntStream.range(0, indices.size()).boxed()
          .sorted(Comparator.comparing((Integer i) -> -values.get(i))).limit(16)
          .sorted().map(indices::get).toList();
      Row got = rows.get(want.get("id").asText());
      assertEquals(top, got.getList(got.fieldIndex("sparse_indices")), want.get("id").asText());
    }
  }

  private static List<Integer> ints(JsonNode array) {
    List<Integer> out = new ArrayList<>();
    array.forEach(v -> out.add(v.asInt()));
    return out;
  }
}
