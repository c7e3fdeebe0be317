package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.pipeline.EncoderTransformer;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bge-m3's three outputs from one pass (src/test/resources/m3-cases, made by
 * jobs/samples/make_m3_cases.py: a random XLMRobertaModel checkpoint with bge-m3's
 * sentence-transformers pipeline and its colbert_linear.pt and sparse_linear.pt, torch.save'd
 * state dicts; reference ids from Hugging Face's Rust tokenizer, outputs from a float64 port of
 * FlagEmbedding's M3Embedder), through the job and the Transformer: the dense vector, the
 * lexical weights (auto: the folder has sparse_linear.pt) and, asked for, the ColBERT vectors.
 */
class M3FoldersTest {
  @TempDir
  Path tmp;

  @Test
  void denseLexicalAndColbertOutputsEqualFlagEmbeddingsPort() throws Exception {
    FolderCases cases = new FolderCases("m3-cases", tmp);
    SparkSession spark = SparkTestSession.get();
    JsonNode texts = cases.json("bge-m3", "texts.json");
    Path input = cases.parquet(spark, texts, false);
    Map<String, Row> job = cases.runJob("bge-m3", input, false,
        "input.max-tokens = 32\noutput { token-embeddings = false, multi-vector = colbert }",
        "xlm-roberta");
    Map<String, Row> transformer = FolderCases.byId(new EncoderTransformer()
        .setModelPath(cases.folder("bge-m3").toString()).setTextCol("text").setMaxTokens(32)
        .setOutputCol("").setMultiVector("colbert")
        .transform(spark.read().parquet(input.toString()).repartition(2)).collectAsList());
    double cosine = 0;
    double sparse = 0;
    double vectors = 0;
    for (Map<String, Row> rows : List.of(job, transformer)) {
      for (JsonNode want : texts) {
        String id = want.get("id").asText();
        Row got = rows.get(id);
        FolderCases.assertIds(want, got);
        double[] dense = SparkInputs.vector(got.getAs("pooled"));
        double[] expected = new double[dense.length];
        for (int c = 0; c < dense.length; c++) {
          expected[c] = want.get("pooled").get(c).asDouble();
        }
        cosine = Math.max(cosine, 1 - Tolerances.cosine(dense, expected));
        assertEquals(FolderCases.ints(want.get("sparse_indices")),
            got.getList(got.fieldIndex("sparse_indices")), id + ": lexical ids");
        List<Float> values = got.getList(got.fieldIndex("sparse_values"));
        assertEquals(want.get("sparse_values").size(), values.size(), id);
        double largest = 0;
        for (JsonNode v : want.get("sparse_values")) {
          largest = Math.max(largest, v.asDouble());
        }
        for (int i = 0; i < values.size(); i++) {
          sparse = Math.max(sparse, Math.abs(values.get(i) - want.get("sparse_values").get(i)
              .asDouble()) / largest);
        }
        double[][] multi = SparkInputs.matrix(got.getAs("multi_vectors"));
        assertEquals(want.get("multi_vectors").size(), multi.length, id + ": ColBERT vectors");
        for (int t = 0; t < multi.length; t++) {
          for (int d = 0; d < multi[t].length; d++) {
            vectors = Math.max(vectors, Math.abs(multi[t][d]
                - want.get("multi_vectors").get(t).get(d).asDouble()));
          }
        }
      }
    }
    System.out.printf("bge-m3: worst 1 - cosine of dense %.2e, lexical weight error over the "
        + "text's largest %.2e, ColBERT value error %.2e%n", cosine, sparse, vectors);
    assertTrue(cosine <= 1e-6, "dense " + cosine);
    assertTrue(sparse <= 1e-4, "lexical " + sparse);
    assertTrue(vectors <= 1e-4, "ColBERT " + vectors);
  }

  /**
   * A sparse_linear.pt whose pickle calls os.system is refused in one line before the job reads
   * a row, and its command never runs; a folder without the head, asked for it, is refused too.
   */
  @Test
  void aPlantedHeadIsRefusedBeforeAnythingRuns() throws Exception {
    FolderCases cases = new FolderCases("m3-cases", tmp);
    Path folder = tmp.resolve("planted");
    Files.createDirectories(folder);
    try (var files = Files.list(cases.folder("bge-m3"))) {
      for (Path f : files.toList()) {
        if (Files.isRegularFile(f)) {
          Files.copy(f, folder.resolve(f.getFileName()));
        }
      }
    }
    Files.createDirectories(folder.resolve("1_Pooling"));
    Files.copy(cases.folder("bge-m3").resolve("1_Pooling/config.json"),
        folder.resolve("1_Pooling/config.json"));
    Files.copy(Path.of(getClass().getResource("/torch-pt-cases/planted-system.pt").toURI()),
        folder.resolve("sparse_linear.pt"), StandardCopyOption.REPLACE_EXISTING);
    Path input = cases.parquet(SparkTestSession.get(), cases.json("bge-m3", "texts.json"),
        false);
    JobRunner.Result run = JobRunner.run(tmp, "input { path = \"" + input
        + "\", text-column = text }", "model.path = \"" + folder + "\"",
        "output.path = \"" + tmp.resolve("planted-out") + "\"");
    assertEquals(1, run.code(), run.error());
    assertTrue(run.error().contains("sparse_linear.pt")
        && run.error().contains("is refused before anything in it runs: global posix system"),
        run.error());
    assertFalse(Files.exists(Path.of("/tmp/planted-ran")), "the planted command ran");
    assertFalse(Files.exists(tmp.resolve("planted-out/embeddings")), "nothing was written");

    Files.delete(folder.resolve("colbert_linear.pt"));
    run = JobRunner.run(tmp, "input { path = \"" + input + "\", text-column = text }",
        "model.path = \"" + folder + "\"", "output { path = \"" + tmp.resolve("no-head")
        + "\", sparse = none, multi-vector = colbert }");
    assertEquals(1, run.code(), run.error());
    assertTrue(run.error().contains("output.multi-vector = colbert needs a PyLate ColBERT "
        + "folder or a model folder with colbert_linear.pt beside its checkpoint"), run.error());
  }
}
