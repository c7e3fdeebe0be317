package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.pipeline.EncoderTransformer;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Folders of static embeddings (src/test/resources/static-cases, made by
 * jobs/samples/make_static_cases.py with a float64 port of sentence-transformers'
 * StaticEmbedding and of model2vec's StaticModel.encode): sentence-transformers' module folder,
 * a model2vec folder (F16, normalize) and a vocabulary-quantized one (mapping and weights, not
 * normalized), through the job with only the text column, and through the Transformer.
 */
class StaticFoldersTest {
  @TempDir
  Path tmp;

  private FolderCases cases() {
    return new FolderCases("static-cases", tmp);
  }

  /**
   * Each row's ids equal the reference's (no special token; model2vec's [UNK] dropped and 512
   * ids kept of a text cut by characters), its vector within 1e-6 of cosine and its norm within
   * 1e-4 of the reference's (a folder that does not normalize keeps the mean's norm), an empty
   * text's vector the zero vector, written.
   */
  @Test
  void eachFolderGivesItsLibrarysVectors() throws Exception {
    for (String name : List.of("st-static", "model2vec", "model2vec-quantized")) {
      String family = name.equals("st-static") ? "static" : "model2vec";
      compare(name, "texts.json", family, "document");
    }
  }

  /** sentence-transformers' folder read as queries: its query prompt is part of the text. */
  @Test
  void theFoldersPromptGoesBeforeTheTextAndIsAveragedWithIt() throws Exception {
    compare("st-static", "queries.json", "static", "query");
  }

  private void compare(String name, String file, String family, String role)
      throws Exception {
    SparkSession spark = SparkTestSession.get();
    JsonNode texts = cases().json(name, file);
    Path input = cases().parquet(spark, texts, false);
    Map<String, Row> job = cases().runJob(name, input, false, "input.role = " + role, family);
    Map<String, Row> transformer = FolderCases.byId(new EncoderTransformer()
        .setModelPath(cases().folder(name).toString()).setTextCol("text").setRole(role)
        .transform(spark.read().parquet(input.toString()).repartition(2)).collectAsList());
    double worstCosine = 0;
    double worstNorm = 0;
    for (Map<String, Row> rows : List.of(job, transformer)) {
      assertEquals(texts.size(), rows.size(), name + ": every row written");
      for (JsonNode want : texts) {
        String id = want.get("id").asText();
        Row got = rows.get(id);
        assertEquals(FolderCases.ints(want.get("input_ids")),
            got.getList(got.fieldIndex("input_ids")), name + " " + id + ": ids");
        double[] vector = SparkInputs.vector(got.getAs("pooled"));
        double norm = want.get("norm").asDouble();
        if (norm == 0) {
          assertTrue(java.util.Arrays.stream(vector).allMatch(v -> v == 0),
              name + " " + id + ": the zero vector");
          continue;
        }
        double dot = 0;
        double gotNorm = 0;
        for (int i = 0; i < vector.length; i++) {
          dot += vector[i] * want.get("pooled").get(i).asDouble();
          gotNorm += vector[i] * vector[i];
        }
        gotNorm = Math.sqrt(gotNorm);
        worstCosine = Math.max(worstCosine, 1 - dot / (gotNorm * norm));
        worstNorm = Math.max(worstNorm, Math.abs(gotNorm - norm) / norm);
      }
    }
    System.out.printf("%s (%s): worst 1 - cosine %.2e, worst relative error of norms %.2e%n",
        name, file, worstCosine, worstNorm);
    assertTrue(worstCosine <= 1e-6, name + ": cosine " + worstCosine);
    assertTrue(worstNorm <= 1e-4, name + ": norms " + worstNorm);
  }

  /** Attention outputs asked of a folder without layers are refused in one line, before Spark. */
  @Test
  void attentionOutputsAreRefusedForStaticEmbeddings() throws Exception {
    Path input = cases().parquet(SparkTestSession.get(), cases().json("model2vec",
        "texts.json"), false);
    JobRunner.Result run = JobRunner.run(tmp, "input { path = \"" + input + "\", text-column "
        + "= text }", "model.path = \"" + cases().folder("model2vec") + "\"",
        "output { path = \"" + tmp.resolve("never") + "\", attention.stats = true }");
    assertEquals(1, run.code(), run.error());
    assertTrue(run.error().contains("The model has no attention (static embeddings"),
        run.error());
  }
}
