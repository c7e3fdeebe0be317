package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.pipeline.EncoderTransformer;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
import io.corpus.encoder.weights.ModelFolder;
import io.corpus.encoder.weights.WeightsException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * XLM-RoBERTa folders (src/test/resources/xlmr-cases, made by jobs/make_xlmr_cases.py: random
 * checkpoints saved as XLMRobertaModel and XLMRobertaForSequenceClassification with a Unigram
 * tokenizer.json; reference ids from Hugging Face's Rust tokenizer, outputs from a float64
 * PyTorch port): texts in nine languages, emoji, an unknown character, the empty string and a
 * text past the limit, through the job and the Transformer, in batches with padding.
 */
class XlmRobertaFoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  private static Path folder(String name) {
    return Path.of("src", "test", "resources", "xlmr-cases", name).toAbsolutePath();
  }

  private static JsonNode json(String name, String file) throws Exception {
    return new ObjectMapper().readTree(folder(name).resolve(file).toFile());
  }

  private Path parquet(SparkSession spark, JsonNode rows, boolean pairs) {
    List<Row> out = new ArrayList<>();
    for (JsonNode r : rows) {
      out.add(pairs ? RowFactory.create(r.get("id").asText(), r.get("a").asText(),
          r.get("b").asText()) : RowFactory.create(r.get("id").asText(), r.get("a").asText()));
    }
    StructType schema = new StructType().add("id", DataTypes.StringType)
        .add("text", DataTypes.StringType);
    if (pairs) {
      schema = schema.add("passage", DataTypes.StringType);
    }
    Path input = tmp.resolve(pairs ? "pairs.parquet" : "texts.parquet");
    spark.createDataFrame(out, schema).coalesce(1).write().parquet(input.toString());
    return input;
  }

  private Map<String, Row> runJob(String name, Path input, boolean pairs, String extra)
      throws Exception {
    Path output = tmp.resolve("out-" + name + (pairs ? "-pairs" : ""));
    Path config = tmp.resolve("job.conf");
    Files.writeString(config, String.join("\n",
        "input { path = \"" + input + "\", "
            + (pairs ? "text-pair-columns = [text, passage]" : "text-column = text") + " }",
        "model.path = \"" + folder(name) + "\"",
        "output.path = \"" + output + "\"",
        "execution { progress = false, batch-tokens = 64 }", extra));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = new EncodeJob.CommandLine(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString()});
    assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
    String summary = Files.readString(output.resolve("run-summary.json"));
    assertTrue(summary.contains("\"family\" : \"xlm-roberta\""), "the summary names the family");
    return byId(SparkTestSession.get().read().parquet(output.resolve("embeddings").toString())
        .collectAsList());
  }

  private static Map<String, Row> byId(List<Row> rows) {
    Map<String, Row> out = new HashMap<>();
    rows.forEach(r -> out.put(r.getAs("id"), r));
    return out;
  }

  /** Token ids (and a pair's type ids) as the reference tokenizer gives them. */
  private static void assertIds(JsonNode want, Row got) {
    assertEquals(ints(want.get("input_ids")), got.getList(got.fieldIndex("input_ids")),
        want.get("id").asText());
    if (want.has("b")) {
      assertEquals(ints(want.get("token_type_ids")),
          got.getList(got.fieldIndex("token_type_ids")), want.get("id").asText());
    }
  }

  private static List<Integer> ints(JsonNode values) {
    List<Integer> out = new ArrayList<>();
    values.forEach(i -> out.add(i.asInt()));
    return out;
  }

  @Test
  void sentenceVectorsAndHiddenStatesEqualThePortThroughTheJobAndTheTransformer()
      throws Exception {
    SparkSession spark = SparkTestSession.get();
    JsonNode texts = json("xlmr-embedding", "texts.json");
    Path input = parquet(spark, texts, false);
    Map<String, Row> job = runJob("xlmr-embedding", input, false, "input.max-tokens = 32");
    Dataset<Row> frame = spark.read().parquet(input.toString()).repartition(2);
    Map<String, Row> transformer = byId(new EncoderTransformer()
        .setModelPath(folder("xlmr-embedding").toString()).setTextCol("text").setMaxTokens(32)
        .transform(frame).collectAsList());
    double worstState = 0;
    double worstCosine = 0;
    for (Map<String, Row> rows : List.of(job, transformer)) {
      assertEquals(texts.size(), rows.size());
      for (JsonNode want : texts) {
        Row got = rows.get(want.get("id").asText());
        assertIds(want, got);
        double[][] states = SparkInputs.matrix(got.getAs("embeddings"));
        double diff = 0;
        double norm = 0;
        for (int t = 0; t < states.length; t++) {
          for (int c = 0; c < states[t].length; c++) {
            double w = want.get("last_hidden_state").get(t).get(c).asDouble();
            diff += Math.pow(states[t][c] - w, 2);
            norm += w * w;
          }
        }
        worstState = Math.max(worstState, Math.sqrt(diff / norm));
        double[] pooled = SparkInputs.vector(got.getAs("pooled"));
        double dot = 0;
        for (int c = 0; c < pooled.length; c++) {
          dot += pooled[c] * want.get("pooled").get(c).asDouble();
        }
        worstCosine = Math.max(worstCosine, 1 - dot);
      }
    }
    System.out.printf("XlmRobertaFoldersTest: worst ‖Δ‖/‖ref‖ of last hidden states %.2e, worst "
        + "1 - cosine of sentence vectors %.2e%n", worstState, worstCosine);
    assertTrue(worstState <= TOLERANCE, "hidden states " + worstState);
    assertTrue(worstCosine <= 1e-6, "sentence vectors " + worstCosine);
  }

  /** Without input.max-tokens, a text is cut at P − 2 tokens: RoBERTa's positions start at 2. */
  @Test
  void theTokenLimitIsThePositionsAfterThePaddingIndex() throws Exception {
    SparkSession spark = SparkTestSession.get();
    JsonNode texts = json("xlmr-embedding", "texts.json");
    Map<String, Row> rows = runJob("xlmr-embedding", parquet(spark, texts, false), false, "");
    Row longest = rows.get("long");
    List<Integer> ids = longest.getList(longest.fieldIndex("input_ids"));
    assertEquals(64, ids.size(), "66 positions less the 2 before the first");
    assertEquals(2, ids.get(63), "the closing </s> stays");
  }

  @ParameterizedTest
  @ValueSource(strings = {"xlmr-3-labels", "xlmr-cross-encoder-1-label"})
  void classifierScoresTextsAndPairsAsThePort(String name) throws Exception {
    SparkSession spark = SparkTestSession.get();
    for (boolean pairs : new boolean[] {false, true}) {
      JsonNode expected = json(name, pairs ? "pairs.json" : "texts.json");
      Map<String, Row> rows = runJob(name, parquet(spark, expected, pairs), pairs,
          "input.max-tokens = 32\noutput.token-embeddings = false");
      double worst = 0;
      for (JsonNode want : expected) {
        Row got = rows.get(want.get("id").asText());
        assertIds(want, got);
        for (String column : List.of("logits", "scores")) {
          worst = Math.max(worst, Tolerances.relativeError(want.get(column),
              got.getList(got.fieldIndex(column))));
        }
        if (want.get("logits").size() > 1) {
          assertEquals(want.get("label").asText(), got.getAs("label"), want.get("id").asText());
        }
      }
      System.out.printf("XlmRobertaFoldersTest: %s %s, worst relative error of logits and "
          + "scores %.2e%n", name, pairs ? "pairs" : "texts", worst);
      assertTrue(worst <= TOLERANCE, "worst relative error " + worst);
    }
  }


  /** Folders of other families, remote code and other positions: one line, naming what it found. */
  @Test
  void otherFoldersAreRefusedInOneLine() throws Exception {
    String config = Files.readString(folder("xlmr-embedding").resolve("config.json"));
    Map<String, String> cases = Map.of(
        config.replace("\"xlm-roberta\"", "\"nomic_bert\""),
        "model_type 'nomic_bert' is not supported; this job runs bert",
        config.replace("{", "{\"auto_map\": {\"AutoModel\": \"modeling.X\"}, "),
        "auto_map names custom modelling code",
        config.replace("\"absolute\"", "\"alibi\""),
        "position_embedding_type 'alibi' is not supported",
        config.replace("\"gelu\"", "\"swish\""),
        "hidden_act 'swish' is not supported");
    int n = 0;
    for (Map.Entry<String, String> c : cases.entrySet()) {
      Path other = Files.createDirectories(tmp.resolve("other-" + n++));
      Files.writeString(other.resolve("config.json"), c.getKey());
      WeightsException refused = assertThrows(WeightsException.class,
          () -> ModelFolder.read(other));
      assertTrue(refused.getMessage().contains(c.getValue()), refused.getMessage());
      assertTrue(!refused.getMessage().contains("\n"), "one line: " + refused.getMessage());
    }
  }
}
