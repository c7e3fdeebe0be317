package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.corpus.encoder.pipeline.EncoderTransformer;
import io.corpus.encoder.testing.FolderCopies;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.weights.WeightsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PyLate ColBERT folders (src/test/resources/pylate-cases, made by
 * jobs/samples/make_pylate_cases.py: a random BERT and a random ModernBERT checkpoint with
 * PyLate's Dense projection and keys, reference ids from Hugging Face's Rust tokenizer, vectors
 * from a float64 port of PyLate's ColBERT.encode), read as documents and as queries through the
 * job with only the folder, the text column and the role, and through the Transformer with
 * either expansion setting and without expansion.
 */
class PyLateFoldersTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  @Test
  void documentsAndQueriesEqualPyLatesPort() throws Exception {
    double worst = 0;
    for (String name : List.of("colbert-bert", "colbert-modernbert")) {
      FolderCases cases = new FolderCases("pylate-cases", tmp);
      SparkSession spark = SparkTestSession.get();
      JsonNode texts = cases.json(name, "texts.json");
      Path input = cases.parquet(spark, texts, false, FolderCases.LEADING,
          FolderCases.TRAILING);
      String family = name.equals("colbert-bert") ? "bert" : "modernbert";
      Map<String, Row> documents = cases.runJob(name, input, false, "", family);
      Map<String, Row> queries = cases.runJob(name, input, false, "input.role = query", family);
      assertFalse(List.of(documents.values().iterator().next().schema().fieldNames())
          .contains("pooled"), "a ColBERT folder pools no vector");
      double error = 0;
      for (JsonNode want : texts) {
        String id = want.get("id").asText();
        error = Math.max(error, compare(want.get("document"), documents.get(id), id));
        error = Math.max(error, compare(want.get("query"), queries.get(id), id + " (query)"));
      }
      for (String form : List.of("query_attending", "query_not_attending", "query_unexpanded")) {
        Path folder = rewritten(cases.folder(name), form);
        Map<String, Row> rows = FolderCases.byId(new EncoderTransformer()
            .setModelPath(folder.toString()).setTextCol("text").setRole("query")
            .setOutputCol("").transform(spark.read().parquet(input.toString()).repartition(2))
            .collectAsList());
        for (JsonNode want : texts) {
          String id = want.get("id").asText();
          error = Math.max(error, compare(want.get(form), rows.get(id), id + " (" + form + ")"));
        }
      }
      System.out.printf("%s: worst ColBERT value error %.2e (documents, queries: expanded "
          + "attending and not, unexpanded)%n", name, error);
      worst = Math.max(worst, error);
    }
    assertTrue(worst <= 1e-4, "ColBERT " + worst);
  }

  /**
   * An update of a ColBERT output encodes only the edited and new rows, keeps the others'
   * vectors bit for bit, and equals a full run; another role is another output, refused.
   */
  @Test
  void anUpdateReusesUnchangedRowsVectorsAndEqualsAFullRun() throws Exception {
    FolderCases cases = new FolderCases("pylate-cases", tmp);
    SparkSession spark = SparkTestSession.get();
    JsonNode texts = cases.json("colbert-bert", "texts.json");
    var v1 = JSON.createArrayNode();
    var v2 = JSON.createArrayNode();
    for (int i = 0; i < texts.size(); i++) {
      ObjectNode row = JSON.createObjectNode().put("id", texts.get(i).get("id").asText())
          .put("a", texts.get(i).get("a").asText());
      v1.add(row);
      if (i >= 2) {                                   // two rows gone, two edited
        v2.add(i < 4 ? row.deepCopy().put("a", row.get("a").asText() + " Edited.") : row);
      }
    }
    v2.addObject().put("id", "new").put("a", "A query nobody encoded, with punctuation!");
    Path first = new FolderCases("pylate-cases", tmp.resolve("v1")).parquet(spark, v1, false);
    Path second = new FolderCases("pylate-cases", tmp.resolve("v2")).parquet(spark, v2, false);
    Path out = tmp.resolve("update-out");
    Path full = tmp.resolve("full-out");
    String model = "model.path = \"" + cases.folder("colbert-bert") + "\"";
    assertEquals(0, JobRunner.run(tmp, "input { path = \"" + first + "\", text-column = text }",
        model, "output.path = \"" + out + "\"").code());
    Map<String, Row> before = FolderCases.byId(spark.read().parquet(out.resolve("embeddings")
        .toString()).collectAsList());
    JsonNode colbert = JSON.readTree(out.resolve("run-summary.json").toFile()).path("model")
        .path("colbert");
    assertEquals("document", colbert.path("role").asText(), colbert.toString());
    assertEquals("[D] ", colbert.path("prefix").asText());
    assertEquals(24, colbert.path("length").asInt());
    JobRunner.Result update = JobRunner.run(tmp, "input { path = \"" + second
        + "\", text-column = text }", model, "output { path = \"" + out + "\", mode = update }");
    assertEquals(0, update.code(), update.error());
    assertTrue(Files.readString(out.resolve("run-summary.json")).replaceAll("\\s", "")
        .contains("\"rows_encoded\":3,\"rows_reused\":11,\"rows_dropped\":2"));
    assertEquals(0, JobRunner.run(tmp, "input { path = \"" + second
        + "\", text-column = text }", model, "output.path = \"" + full + "\"").code());
    Map<String, Row> updated = FolderCases.byId(spark.read().parquet(out.resolve("embeddings")
        .toString()).collectAsList());
    Map<String, Row> expected = FolderCases.byId(spark.read().parquet(full.resolve("embeddings")
        .toString()).collectAsList());
    assertEquals(expected.keySet(), updated.keySet());
    for (String id : expected.keySet()) {
      double[][] want = SparkInputs.matrix(expected.get(id).getAs("multi_vectors"));
      double[][] got = SparkInputs.matrix(updated.get(id).getAs("multi_vectors"));
      assertEquals(want.length, got.length, id);
      for (int t = 0; t < want.length; t++) {
        for (int d = 0; d < want[t].length; d++) {
          assertEquals(want[t][d], got[t][d], 1e-6, id);
        }
      }
      boolean reused = before.containsKey(id) && !id.equals(texts.get(2).get("id").asText())
          && !id.equals(texts.get(3).get("id").asText());
      if (reused) {
        assertEquals(before.get(id).<Object>getAs("multi_vectors"),
            updated.get(id).<Object>getAs("multi_vectors"), id + " was not reused");
      }
    }
    JobRunner.Result queries = JobRunner.run(tmp, "input { path = \"" + second
        + "\", text-column = text, role = query, max-tokens = 24 }", model, "output { path = \"" + out
        + "\", mode = update }");
    assertEquals(1, queries.code());
    assertTrue(queries.error().contains("was made with model.colbert.prefix = \"[D] \" (this "
        + "run: \"[Q] \"), so its rows cannot be reused"), queries.error());
  }

  /** --check says how the folder reads the texts, as queries and as documents. */
  @Test
  void checkSaysHowTheTextsAreRead() throws Exception {
    FolderCases cases = new FolderCases("pylate-cases", tmp);
    Path input = cases.parquet(SparkTestSession.get(), cases.json("colbert-modernbert",
        "texts.json"), false);
    Map<String, String> expected = Map.of("query", "ColBERT multi-vectors (queries: '[Q] ' "
        + "after the first token, at most 12 tokens, padded with the mask token to 12, the "
        + "padding attended to)", "document", "ColBERT multi-vectors (documents: '[D] ' after "
        + "the first token, at most 32 tokens, no vectors for 32 skiplist words)");
    for (Map.Entry<String, String> role : expected.entrySet()) {
      Path config = JobRunner.config(tmp, "check-" + role.getKey(), "input { path = \""
          + input + "\", text-column = text, role = " + role.getKey() + " }",
          "model.path = \"" + cases.folder("colbert-modernbert") + "\"",
          "output.path = \"" + tmp.resolve("check-out") + "\"");
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      int code = new EncodeCommand(new java.io.PrintStream(out),
          new java.io.PrintStream(new java.io.ByteArrayOutputStream()))
          .run(new String[] {"--config", config.toString(), "--check"});
      String printed = out.toString(java.nio.charset.StandardCharsets.UTF_8);
      assertEquals(0, code, printed);
      assertTrue(printed.contains("pooling none; " + role.getValue()), printed);
    }
  }

  /** The folder's token ids, and its vectors: as many, each within the worst error returned. */
  private static double compare(JsonNode want, Row got, String id) {
    assertEquals(FolderCases.ints(want.get("input_ids")),
        got.getList(got.fieldIndex("input_ids")), id + ": ids");
    double[][] vectors = SparkInputs.matrix(got.getAs("multi_vectors"));
    JsonNode expected = want.get("multi_vectors");
    assertEquals(expected.size(), vectors.length, id + ": ColBERT vectors");
    double error = 0;
    for (int t = 0; t < vectors.length; t++) {
      assertEquals(expected.get(t).size(), vectors[t].length, id);
      for (int d = 0; d < vectors[t].length; d++) {
        error = Math.max(error, Math.abs(vectors[t][d] - expected.get(t).get(d).asDouble()));
      }
    }
    return error;
  }

  /** A copy of the folder whose config says what {@code form} of query texts.json holds. */
  private Path rewritten(Path folder, String form) throws Exception {
    Path copy = FolderCopies.copy(folder, tmp.resolve(folder.getFileName() + "-" + form));
    Path file = copy.resolve("config_sentence_transformers.json");
    ObjectNode config = (ObjectNode) JSON.readTree(file.toFile());
    config.put("do_query_expansion", !form.equals("query_unexpanded"));
    config.put("attend_to_expansion_tokens", form.equals("query_attending"));
    JSON.writeValue(file.toFile(), config);
    return copy;
  }


  /**
   * What a PyLate folder cannot do is refused in one line: a prefix its tokenizer lacks (PyLate
   * would give it an untrained embedding row), token ids as input, and a Stanford ColBERT
   * checkpoint without modules.json.
   */
  @Test
  void whatAPyLateFolderCannotDoIsRefusedInOneLine() throws Exception {
    FolderCases cases = new FolderCases("pylate-cases", tmp);
    SparkSession spark = SparkTestSession.get();
    Path input = cases.parquet(spark, cases.json("colbert-bert", "texts.json"), false);
    Path folder = FolderCopies.copy(cases.folder("colbert-bert"), tmp.resolve("unknown-prefix"));
    Path file = folder.resolve("config_sentence_transformers.json");
    ObjectNode config = (ObjectNode) JSON.readTree(file.toFile());
    JSON.writeValue(file.toFile(), config.put("query_prefix", "[QUERY] "));
    JobRunner.Result run = JobRunner.run(tmp, "input { path = \"" + input
        + "\", text-column = text, role = query }", "model.path = \"" + folder + "\"",
        "output.path = \"" + tmp.resolve("out-unknown") + "\"");
    assertEquals(1, run.code(), run.error());
    assertTrue(run.error().contains("has no token '[QUERY] ' (query_prefix): PyLate adds it"),
        run.error());

    Dataset<Row> ids = FolderCases.paddedIds(spark, documentsOf(cases), 0, false);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () ->
        new EncoderTransformer().setModelPath(cases.folder("colbert-bert").toString())
            .setIdsCol("ids").transform(ids));
    assertTrue(e.getMessage().contains("is a PyLate ColBERT folder, which reads single texts"),
        e.getMessage());

    Path stanford = tmp.resolve("stanford");
    Files.createDirectories(stanford);
    for (String name : List.of("config.json", "model.safetensors", "tokenizer.json")) {
      Files.copy(cases.folder("colbert-bert").resolve(name), stanford.resolve(name));
    }
    ObjectNode c = (ObjectNode) JSON.readTree(stanford.resolve("config.json").toFile());
    c.putArray("architectures").add("HF_ColBERT");
    JSON.writeValue(stanford.resolve("config.json").toFile(), c);
    WeightsException refused = assertThrows(WeightsException.class,
        () -> io.corpus.encoder.weights.ModelFolder.read(stanford));
    assertTrue(refused.getMessage().contains("is a Stanford ColBERT checkpoint (HF_ColBERT"),
        refused.getMessage());
  }

  /** The documents' reference ids, as texts.json rows with input_ids, for paddedIds. */
  private static JsonNode documentsOf(FolderCases cases) throws Exception {
    var rows = JSON.createArrayNode();
    for (JsonNode t : cases.json("colbert-bert", "texts.json")) {
      rows.addObject().put("id", t.get("id").asText())
          .set("input_ids", t.get("document").get("input_ids"));
    }
    return rows;
  }
}
