package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Token-classification folders (src/test/resources/token-cases, made by
 * jobs/samples/make_token_classifier_cases.py: random BertForTokenClassification on
 * all-MiniLM-L6-v2's WordPiece tokenizer, XLMRobertaForTokenClassification on a Unigram one,
 * ModernBertForTokenClassification (its prediction head on every token) on a byte-level BPE,
 * DebertaV2ForTokenClassification (disentangled attention) on a Unigram of DeBERTa's form;
 * license texts, emoji and accents before words, multi-piece words, an unknown character, the
 * empty text, one text past every limit), through jobs/encode, against a port of transformers'
 * token-classification pipeline: token labels equal, every entity's label, start, end and text
 * equal, scores within 1e-4, for each aggregation strategy; cut at the folder's limit, and in
 * windows merged as the pipeline's stride merges them.
 */
class TokenClassifierFoldersTest {
  private static final double SCORE_TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  private static Path folder(String name) {
    return Path.of("src", "test", "resources", "token-cases", name).toAbsolutePath();
  }

  private static JsonNode expected(String name) throws Exception {
    return new ObjectMapper().readTree(folder(name).resolve("expected.json").toFile());
  }

  private Path texts(JsonNode expected) {
    List<Row> rows = new ArrayList<>();
    expected.forEach(r -> rows.add(RowFactory.create(r.get("id").asText(),
        r.get("text").asText())));
    Path input = tmp.resolve("texts.parquet");
    SparkTestSession.get().createDataFrame(rows, new StructType()
        .add("id", DataTypes.StringType).add("text", DataTypes.StringType))
        .coalesce(1).write().parquet(input.toString());
    return input;
  }

  /** jobs/encode with only the input, the model folder, the output and {@code extra}. */
  private Map<String, Row> job(String name, Path input, String extra) throws Exception {
    Path output = tmp.resolve("out-" + name);
    JobRunner.Result run = JobRunner.run(tmp,
        "input { path = \"" + input + "\", text-column = text }",
        "model.path = \"" + folder(name) + "\"", "output.path = \"" + output + "\"", extra);
    assertEquals(0, run.code(), run.error());
    SparkSession spark = SparkTestSession.get();
    Map<String, Row> byId = new HashMap<>();
    spark.read().parquet(output.resolve("embeddings").toString()).collectAsList()
        .forEach(r -> byId.put(r.getAs("id"), r));
    return byId;
  }

  @ParameterizedTest
  @CsvSource({"bert-ner, auto", "bert-ner, first", "bert-ner, average", "bert-ner, max",
      "xlmr-ner, simple", "xlmr-ner, first", "xlmr-ner, average", "xlmr-ner, max",
      "modernbert-ner, simple", "modernbert-ner, first", "modernbert-ner, average",
      "modernbert-ner, max", "deberta-ner, simple", "deberta-ner, average"})
  void labelsAndEntitiesOfTextsCutAtTheLimitAreThePipelines(String name, String entities)
      throws Exception {
    JsonNode expected = expected(name);
    Map<String, Row> rows = job(name, texts(expected),
        entities.equals("auto") ? "" : "output.entities = " + entities);
    String strategy = entities.equals("auto") ? "simple" : entities;
    assertEquals(expected.size(), rows.size());
    int count = 0;
    for (JsonNode want : expected) {
      Row got = rows.get(want.get("id").asText());
      assertEquals(strings(want.get("token_labels")), got.getList(got.fieldIndex(
          "token_labels")), want.get("id").asText());
      count += assertEntities(want.get("entities").get(strategy), got, want.get("id").asText());
    }
    assertTrue(count > 30, count + " entities");
  }

  /**
   * Windows of 24 tokens with an overlap of 6: one row per text, its windows' token labels in
   * order, its entities merged as the pipeline's stride merges them.
   */
  @ParameterizedTest
  @CsvSource({"bert-ner, simple", "bert-ner, first", "bert-ner, average", "bert-ner, max",
      "xlmr-ner, simple", "xlmr-ner, first", "xlmr-ner, average", "xlmr-ner, max",
      "modernbert-ner, first", "modernbert-ner, max", "deberta-ner, max"})
  void entitiesOfAllWindowsAreMergedIntoOneRowPerText(String name, String strategy)
      throws Exception {
    JsonNode expected = expected(name);
    Map<String, Row> rows = job(name, texts(expected), "output.entities = " + strategy
        + "\ninput { max-tokens = 24, on-too-long = chunk, chunk-overlap = 6 }"
        + "\noutput.token-embeddings = false");
    assertEquals(expected.size(), rows.size(), "one row per text");
    boolean overlapped = false;
    for (JsonNode want : expected) {
      String id = want.get("id").asText();
      Row got = rows.get(id);
      assertEquals(want.get("chunks").asInt(), (int) got.getAs("chunks"), id);
      List<String> labels = got.getList(got.fieldIndex("token_labels"));
      assertEquals(strings(want.get("chunk_token_labels")), labels, id);
      assertEquals(labels.size(), got.getList(got.fieldIndex("input_ids")).size(), id);
      assertEntities(want.get("chunk_entities").get(strategy), got, id);
      overlapped |= want.get("chunks").asInt() > 2;
    }
    assertTrue(overlapped, "a text of three windows or more");
  }

  /**
   * Entities asked of a folder without a token classifier, SPLADE of one without a masked-LM
   * head, and a document's token vectors in one row: refused before any row is read, in one
   * line naming what is missing.
   */
  @Test
  void whatCannotBeWrittenIsRefusedInOneLine() throws Exception {
    Path input = texts(expected("bert-ner"));
    Path miniLm = SharedModels.miniLm();
    List<String[]> refused = List.of(
        new String[] {miniLm.toString(), "output.entities = first",
            "entities = first needs a token classifier"},
        new String[] {miniLm.toString(), "output.pooling = splade",
            "SPLADE needs the masked-language-model head, but tensor "
                + "cls.predictions.transform.dense.weight is missing"},
        new String[] {folder("bert-ner").toString(), "input.on-too-long = chunk",
            "set output.token-embeddings = false"});
    for (String[] c : refused) {
      JobRunner.Result run = JobRunner.run(tmp,
          "input { path = \"" + input + "\", text-column = text }",
          "model.path = \"" + c[0] + "\"",
          "output.path = \"" + tmp.resolve("refused-" + c[1].hashCode()) + "\"", c[1]);
      assertEquals(1, run.code(), c[1]);
      assertTrue(run.error().contains(c[2]), run.error());
      assertEquals(1, run.error().strip().lines().count(), run.error());
    }
  }

  /** The row's entities against the pipeline's; returns how many. */
  private static int assertEntities(JsonNode want, Row got, String id) {
    List<Row> entities = got.getList(got.fieldIndex("entities"));
    assertEquals(describe(want), describe(entities), id);
    for (int i = 0; i < entities.size(); i++) {
      double expected = want.get(i).get("score").asDouble();
      float actual = entities.get(i).getAs("score");
      assertEquals(expected, actual, SCORE_TOLERANCE, id + " entity " + i);
    }
    String text = got.getAs("text");
    for (Row e : entities) {   // Python's text[start:end]
      int[] codePoints = text.codePoints().toArray();
      int start = e.getAs("start");
      int end = e.getAs("end");
      assertEquals(new String(codePoints, start, end - start), e.getAs("text"), id);
      assertFalse(e.<String>getAs("label").equals("O"), id);
    }
    return entities.size();
  }

  private static List<String> describe(JsonNode entities) {
    List<String> out = new ArrayList<>();
    entities.forEach(e -> out.add(e.get("label").asText() + " " + e.get("start").asInt() + ".."
        + e.get("end").asInt() + " '" + e.get("text").asText() + "'"));
    return out;
  }

  private static List<String> describe(List<Row> entities) {
    List<String> out = new ArrayList<>();
    entities.forEach(e -> out.add(e.getAs("label") + " " + e.getAs("start") + ".."
        + e.getAs("end") + " '" + e.getAs("text") + "'"));
    return out;
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(v -> out.add(v.asText()));
    return out;
  }
}
