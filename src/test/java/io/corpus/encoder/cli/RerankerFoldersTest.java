package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Qwen3-Reranker as it comes on the Hub (src/test/resources/reranker-cases, made by
 * jobs/samples/make_qwen3_reranker_cases.py: Qwen3ForCausalLM with a tied lm_head, Qwen3's base
 * tokenizer; the ids and scores its model card computes, through a float64 port), read with
 * {@code model.reranker = qwen3} on text pairs: the card's template around each pair, the
 * document cut and never the suffix, the score sigmoid(yes − no) at the last token; and
 * mxbai-rerank-v2 (make_mxbai_reranker_cases.py) with {@code model.reranker = mxbai-v2}.
 */
class RerankerFoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  private FolderCases cases() {
    return new FolderCases("reranker-cases", tmp);
  }

  private double worst(String file, String extra) throws Exception {
    return worst(cases(), "qwen3-reranker", file, extra);
  }

  private double worst(FolderCases cases, String folder, String file, String extra)
      throws Exception {
    return worst(cases, folder, file, "model.reranker = qwen3\ninput.max-tokens = 320\n"
        + extra, "qwen3");
  }

  private double worst(FolderCases cases, String folder, String file, String extra,
      String family) throws Exception {
    JsonNode expected = cases.json(folder, file);
    Map<String, Row> rows = cases.runJob(folder, cases.parquet(
        SparkTestSession.get(), expected, true), true, "output.token-embeddings = false\n"
        + extra, family);
    assertEquals(expected.size(), rows.size());
    double worst = 0;
    for (JsonNode want : expected) {
      Row got = rows.get(want.get("id").asText());
      assertEquals(FolderCases.ints(want.get("input_ids")), got.getList(got.fieldIndex(
          "input_ids")), want.get("id").asText());
      for (String column : List.of("logits", "scores")) {
        worst = Math.max(worst, Tolerances.relativeError(want.get(column),
            got.getList(got.fieldIndex(column))));
      }
    }
    System.out.printf("%s %s: worst relative error of logits and scores %.2e%n", folder,
        file, worst);
    return worst;
  }

  @Test
  void pairsScoreAsTheModelCardWithItsInstruction() throws Exception {
    double worst = worst("pairs.json", "");
    assertTrue(worst <= TOLERANCE, "worst relative error " + worst);
  }

  @Test
  void anInstructionGivenIsWrittenIntoTheTemplate() throws Exception {
    double worst = worst("pairs-instructed.json",
        "input.instruction = \"Given a question, find the passage that answers it\"");
    assertTrue(worst <= TOLERANCE, "worst relative error " + worst);
  }

  /**
   * mxbai-rerank-v2 (Qwen2ForCausalLM, tied embeddings) as mixedbread's MxbaiRerankV2 runs it:
   * the query and the document tokenized apart between its template's pieces, the "1" logit
   * less the "0" logit at the last token; an instruction goes before the query.
   */
  @Test
  void mxbaiRerankV2ScoresAsItsOwnCode() throws Exception {
    double worst = Math.max(worst(cases(), "mxbai-rerank-v2", "pairs.json",
        "model.reranker = mxbai-v2", "qwen2"), worst(cases(), "mxbai-rerank-v2",
        "pairs-instructed.json", "model.reranker = mxbai-v2\ninput.instruction = \"Find the "
        + "passage that answers the question\"", "qwen2"));
    assertTrue(worst <= TOLERANCE, "worst relative error " + worst);
  }

  /**
   * A folder converted to Qwen3ForSequenceClassification (-seq-cls) takes the card's template
   * too, and keeps its own score layer.
   */
  @Test
  void aConvertedSeqClsFolderTakesTheTemplateWithItsOwnHead() throws Exception {
    double worst = worst(new FolderCases("decoder-classifier-cases", tmp),
        "qwen3-reranker-seq-cls", "pairs-templated.json", "");
    assertTrue(worst <= TOLERANCE, "worst relative error " + worst);
  }

  /** Without model.reranker the folder is refused, and the refusal says what to set. */
  @Test
  void theFolderAloneIsRefusedNamingTheSetting() throws Exception {
    Path input = cases().parquet(SparkTestSession.get(),
        cases().json("qwen3-reranker", "pairs.json"), true);
    JobRunner.Result run = JobRunner.run(tmp, "input { path = \"" + input + "\", "
        + "text-pair-columns = [text, passage] }", "model.path = \""
        + cases().folder("qwen3-reranker") + "\"", "output.path = \"" + tmp.resolve("never")
        + "\"");
    assertEquals(1, run.code());
    assertTrue(run.error().contains("model.reranker = qwen3"), run.error());
    JobRunner.Result single = JobRunner.run(tmp, "input { path = \"" + input + "\", "
        + "text-column = text }", "model.path = \"" + cases().folder("qwen3-reranker") + "\"",
        "model.reranker = qwen3", "output.path = \"" + tmp.resolve("never") + "\"");
    assertEquals(1, single.code());
    assertTrue(single.error().contains("scores text pairs: set textPairCols "
        + "(input.text-pair-columns)"), single.error());
  }
}
