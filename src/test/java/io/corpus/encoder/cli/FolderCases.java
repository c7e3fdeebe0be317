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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Golden model folders of one family under src/test/resources (made by a jobs/make_*_cases.py
 * script: a random checkpoint, its tokenizer.json, and texts.json with the reference ids, last
 * hidden states and pooled vectors), run through the job, compared with the reference.
 *
 * @param cases the folder holding the cases, one subfolder each
 * @param tmp where inputs and outputs go
 */
record FolderCases(String cases, Path tmp) {

  /** The worst ‖Δ‖/‖ref‖ of last hidden states and the worst 1 − cosine of pooled vectors. */
  record Worst(double states, double cosine) {}

  Path folder(String name) {
    return Path.of("src", "test", "resources", cases, name).toAbsolutePath();
  }

  JsonNode json(String name, String file) throws Exception {
    return new ObjectMapper().readTree(folder(name).resolve(file).toFile());
  }

  /**
   * What a text may carry at its edges in a corpus: Python's {@code str.strip()} removes all of
   * it, Java's {@code String.strip()} not U+00A0, and byte-level BPE and SentencePiece make
   * tokens of it.
   */
  static final String LEADING = "\n\t\u3000\u00a0";
  static final String TRAILING = " \u00a0\u3000\r\n";

  /** The rows' ids and texts (and passages, for pairs) as a one-file Parquet input. */
  Path parquet(SparkSession spark, JsonNode rows, boolean pairs) {
    return parquet(spark, rows, pairs, "", "");
  }

  /**
   * As {@link #parquet(SparkSession, JsonNode, boolean)}, each text (and passage) with
   * {@code lead} before it and {@code trail} after it.
   */
  Path parquet(SparkSession spark, JsonNode rows, boolean pairs, String lead, String trail) {
    List<Row> out = new ArrayList<>();
    for (JsonNode r : rows) {
      String a = lead + r.get("a").asText() + trail;
      out.add(pairs ? RowFactory.create(r.get("id").asText(), a,
          lead + r.get("b").asText() + trail) : RowFactory.create(r.get("id").asText(), a));
    }
    StructType schema = new StructType().add("id", DataTypes.StringType)
        .add("text", DataTypes.StringType);
    if (pairs) {
      schema = schema.add("passage", DataTypes.StringType);
    }
    Path input = tmp.resolve((pairs ? "pairs" : "texts") + (lead + trail).hashCode()
        + ".parquet");
    if (!Files.exists(input)) {
      spark.createDataFrame(out, schema).coalesce(1).write().parquet(input.toString());
    }
    return input;
  }

  /**
   * Runs jobs/encode on the case's folder, checks that the summary names {@code family}, and
   * returns the embeddings table by id.
   */
  Map<String, Row> runJob(String name, Path input, boolean pairs, String extra,
      String family) throws Exception {
    Path output = tmp.resolve("out-" + name + (pairs ? "-pairs" : "") + "-" + extra.hashCode());
    JobRunner.Result run = JobRunner.run(tmp,
        "input { path = \"" + input + "\", "
            + (pairs ? "text-pair-columns = [text, passage]" : "text-column = text") + " }",
        "model.path = \"" + folder(name) + "\"",
        "output.path = \"" + output + "\"",
        "execution.batch-tokens = 64", extra);
    assertEquals(0, run.code(), run.error());
    String summary = Files.readString(output.resolve("run-summary.json"));
    assertTrue(summary.contains("\"family\" : \"" + family + "\""), "the summary names "
        + family);
    return byId(SparkTestSession.get().read().parquet(output.resolve("embeddings").toString())
        .collectAsList());
  }

  /**
   * The case's texts.json through the job and through the Transformer, both cut at
   * {@code maxTokens}, against the reference: the worst errors of either, printed with the case.
   */
  Worst jobAndTransformer(String name, int maxTokens, String family) throws Exception {
    return jobAndTransformer(name, maxTokens, family, "");
  }

  /** As {@link #jobAndTransformer(String, int, String)}, with the folder's prompt of this name. */
  Worst jobAndTransformer(String name, int maxTokens, String family, String promptName)
      throws Exception {
    return jobAndTransformer(name, maxTokens, family, promptName, "auto");
  }

  /**
   * As {@link #jobAndTransformer(String, int, String, String)}, with this pooling setting. A
   * sentence-transformers folder's texts carry whitespace at their edges ({@link #LEADING} only
   * where no prompt goes before them: sentence-transformers strips the prompt and text as one),
   * which must not change a token or a vector.
   */
  Worst jobAndTransformer(String name, int maxTokens, String family, String promptName,
      String pooling) throws Exception {
    return jobAndTransformer(name, maxTokens, family, promptName, pooling, "document");
  }

  /**
   * As {@link #jobAndTransformer(String, int, String, String, String)}, the texts encoded in
   * this {@code input.role} (document or query).
   */
  Worst jobAndTransformer(String name, int maxTokens, String family, String promptName,
      String pooling, String role) throws Exception {
    SparkSession spark = SparkTestSession.get();
    JsonNode texts = json(name, "texts.json");
    ModelFolder model = ModelFolder.read(folder(name));
    Map<String, String> prompts = model.prompts().byName();
    String rolePrompt = (role.equals("query") ? List.of("query")
        : List.of("document", "passage", "corpus")).stream().filter(prompts::containsKey)
        .findFirst().map(prompts::get).orElse("");
    boolean prompted = !promptName.isEmpty() || model.prompts().defaultName().isPresent()
        || !rolePrompt.isEmpty();
    Path input = model.stripsTexts()
        ? parquet(spark, texts, false, prompted ? "" : LEADING, TRAILING)
        : parquet(spark, texts, false);
    Map<String, Row> job = runJob(name, input, false, "input { max-tokens = " + maxTokens
        + ", prompt-name = \"" + promptName + "\", role = " + role + " }\noutput.pooling = "
        + pooling, family);
    Map<String, Row> transformer = byId(new EncoderTransformer()
        .setModelPath(folder(name).toString()).setTextCol("text").setMaxTokens(maxTokens)
        .setPromptName(promptName).setPooling(pooling).setRole(role)
        .transform(spark.read().parquet(input.toString()).repartition(2)).collectAsList());
    Worst worst = compare(texts, List.of(job, transformer));
    System.out.printf("%s: worst ‖Δ‖/‖ref‖ of last hidden states %.2e, worst 1 - cosine of "
        + "pooled vectors %.2e%n", name, worst.states(), worst.cosine());
    return worst;
  }

  /**
   * The case's texts.json through the job with its weight products in {@code precision}
   * ({@code model.precision}), against the float64 reference: the worst errors, printed.
   */
  Worst inPrecision(String name, int maxTokens, String family, String promptName,
      String precision) throws Exception {
    JsonNode texts = json(name, "texts.json");
    Path input = parquet(SparkTestSession.get(), texts, false);
    Map<String, Row> job = runJob(name, input, false, "input { max-tokens = " + maxTokens
        + ", prompt-name = \"" + promptName + "\" }\nmodel.precision = " + precision, family);
    Worst worst = compare(texts, List.of(job));
    System.out.printf("%s in %s: worst ‖Δ‖/‖ref‖ of last hidden states %.2e, worst 1 - cosine "
        + "of pooled vectors %.2e%n", name, precision, worst.states(), worst.cosine());
    return worst;
  }

  /**
   * A classifier case's texts.json, then its pairs.json, through the job cut at
   * {@code maxTokens}: ids and type ids equal, labels equal; returns the worst relative error of
   * logits and scores over both, printed with the case.
   */
  double classifierWorst(String name, int maxTokens, String family) throws Exception {
    double worst = 0;
    for (boolean pairs : new boolean[] {false, true}) {
      JsonNode expected = json(name, pairs ? "pairs.json" : "texts.json");
      Map<String, Row> rows = runJob(name, parquet(SparkTestSession.get(), expected, pairs),
          pairs, "input.max-tokens = " + maxTokens + "\noutput.token-embeddings = false", family);
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
    }
    System.out.printf("%s: texts and pairs, worst relative error of logits and scores %.2e%n",
        name, worst);
    return worst;
  }

  /**
   * The texts' reference ids as an (id, ids, mask) table, each padded with {@code pad} to the
   * longest on the left or on the right, its mask 1 on the real tokens.
   */
  static Dataset<Row> paddedIds(SparkSession spark, JsonNode texts, int pad, boolean left) {
    int longest = 0;
    for (JsonNode t : texts) {
      longest = Math.max(longest, t.get("input_ids").size());
    }
    List<Row> rows = new ArrayList<>();
    for (JsonNode t : texts) {
      int n = t.get("input_ids").size();
      List<Integer> ids = new ArrayList<>(java.util.Collections.nCopies(longest, pad));
      List<Integer> mask = new ArrayList<>(java.util.Collections.nCopies(longest, 0));
      for (int i = 0; i < n; i++) {
        ids.set(left ? longest - n + i : i, t.get("input_ids").get(i).asInt());
        mask.set(left ? longest - n + i : i, 1);
      }
      rows.add(RowFactory.create(t.get("id").asText(), ids, mask));
    }
    StructType schema = new StructType().add("id", DataTypes.StringType)
        .add("ids", DataTypes.createArrayType(DataTypes.IntegerType))
        .add("mask", DataTypes.createArrayType(DataTypes.IntegerType));
    return spark.createDataFrame(rows, schema).repartition(2);
  }

  static Map<String, Row> byId(List<Row> rows) {
    Map<String, Row> out = new HashMap<>();
    rows.forEach(r -> out.put(r.getAs("id"), r));
    return out;
  }

  /** Token ids (and a pair's type ids) as the reference tokenizer gives them. */
  static void assertIds(JsonNode want, Row got) {
    assertEquals(ints(want.get("input_ids")), got.getList(got.fieldIndex("input_ids")),
        want.get("id").asText());
    if (want.has("b")) {
      assertEquals(ints(want.get("token_type_ids")),
          got.getList(got.fieldIndex("token_type_ids")), want.get("id").asText());
    }
  }

  static List<Integer> ints(JsonNode values) {
    List<Integer> out = new ArrayList<>();
    values.forEach(i -> out.add(i.asInt()));
    return out;
  }

  /**
   * Every reference row's ids, last hidden states ({@code embeddings}) and pooled vector
   * against each output, which must hold exactly the reference's rows.
   */
  static Worst compare(JsonNode texts, Collection<Map<String, Row>> outputs) {
    double worstState = 0;
    double worstCosine = 0;
    for (Map<String, Row> rows : outputs) {
      assertEquals(texts.size(), rows.size());
      for (JsonNode want : texts) {
        Row got = rows.get(want.get("id").asText());
        assertIds(want, got);
        double[][] states = SparkInputs.matrix(got.getAs("embeddings"));
        assertEquals(want.get("last_hidden_state").size(), states.length);
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
        double[] expected = new double[pooled.length];
        for (int c = 0; c < pooled.length; c++) {
          expected[c] = want.get("pooled").get(c).asDouble();
        }
        worstCosine = Math.max(worstCosine, 1 - Tolerances.cosine(pooled, expected));
      }
    }
    return new Worst(worstState, worstCosine);
  }

  /**
   * Each config.json text, alone in a folder, is refused by {@link ModelFolder#read} in one
   * line containing what the map gives for it.
   */
  void assertRefusedInOneLine(Map<String, String> configs) throws Exception {
    int n = 0;
    for (Map.Entry<String, String> c : configs.entrySet()) {
      Path other = Files.createDirectories(tmp.resolve("refused-" + n++));
      Files.writeString(other.resolve("config.json"), c.getKey());
      WeightsException e = assertThrows(WeightsException.class, () -> ModelFolder.read(other));
      assertTrue(e.getMessage().contains(c.getValue()), e.getMessage());
      assertTrue(!e.getMessage().contains("\n"), "one line: " + e.getMessage());
    }
  }
}
