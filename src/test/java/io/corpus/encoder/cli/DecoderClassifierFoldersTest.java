package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.pipeline.EncoderTransformer;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
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
 * Decoder sequence classifiers (src/test/resources/decoder-classifier-cases, made by
 * jobs/samples/make_decoder_classifier_cases.py: Qwen3ForSequenceClassification as the converted
 * Qwen3-Reranker comes, one label, a tokenizer that adds nothing; Qwen2ForSequenceClassification
 * with three labels whose tokenizer_config.json appends <|endoftext|>, which is also its
 * pad_token_id; MistralForSequenceClassification without a pad token; BF16 under `model.` with
 * `score.weight`; logits from a float64 port of
 * transformers' sequence classification: the score on the rightmost token that is not the pad
 * token), on texts and pairs, through the job, and padded ids through the Transformer.
 */
class DecoderClassifierFoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  private FolderCases cases() {
    return new FolderCases("decoder-classifier-cases", tmp);
  }

  /** One logit, sigmoid, read at the last token. */
  @Test
  void convertedQwen3RerankerScoresTextsAndPairsAsThePort() throws Exception {
    double worst = cases().classifierWorst("qwen3-reranker-seq-cls", 96, "qwen3");
    assertTrue(worst <= TOLERANCE, "worst relative error " + worst);
  }

  /** Three labels, softmax, read at the token before the <|endoftext|> that is the pad token. */
  @Test
  void qwen2ClassifierReadsTheTokenBeforeItsPadTokenAsThePort() throws Exception {
    double worst = cases().classifierWorst("qwen2-seq-cls", 96, "qwen2");
    assertTrue(worst <= TOLERANCE, "worst relative error " + worst);
  }

  /** Mistral's head, with no pad token in config.json: read at the last token. */
  @Test
  void mistralClassifierWithoutAPadTokenReadsTheLastTokenAsThePort() throws Exception {
    double worst = cases().classifierWorst("mistral-seq-cls", 96, "mistral");
    assertTrue(worst <= TOLERANCE, "worst relative error " + worst);
  }

  /**
   * Ids padded with the pad token on the left and on the right, with their masks, through the
   * Transformer: the logits of the unpadded texts, never those of a padding position.
   */
  @Test
  void leftAndRightPaddedIdsGiveThePortsLogits() throws Exception {
    SparkSession spark = SparkTestSession.get();
    JsonNode texts = cases().json("qwen2-seq-cls", "texts.json");
    int pad = cases().json("qwen2-seq-cls", "config.json").get("pad_token_id").asInt();
    for (boolean left : new boolean[] {true, false}) {
      Dataset<Row> rows = FolderCases.paddedIds(spark, texts, pad, left);
      Map<String, Row> out = FolderCases.byId(new EncoderTransformer()
          .setModelPath(cases().folder("qwen2-seq-cls").toString()).setIdsCol("ids")
          .setMaskCol("mask").setMaxTokens(96).setBatchTokens(128)
          .transform(rows).collectAsList());
      for (JsonNode t : texts) {
        Row got = out.get(t.get("id").asText());
        double error = Tolerances.relativeError(t.get("logits"),
            got.getList(got.fieldIndex("logits")));
        assertTrue(error <= TOLERANCE, (left ? "left" : "right") + " padding, "
            + t.get("id").asText() + ": logits off by " + error);
      }
    }
  }

  /**
   * A text that gives no token (the empty text, with a tokenizer that adds nothing) is set aside
   * with its reason; the other rows are scored (blanks are tokens to a byte-level tokenizer, and
   * a folder without sentence-transformers modules does not strip them).
   */
  @Test
  void aTextOfNoTokenIsSetAsideWithItsReason() throws Exception {
    Path input = cases().parquet(SparkTestSession.get(), new com.fasterxml.jackson.databind
        .ObjectMapper().readTree("[{\"id\": \"empty\", \"a\": \"\"}, {\"id\": \"blank\", \"a\": "
        + "\"  \"}, {\"id\": \"word\", \"a\": \"word\"}]"), false);
    Path output = tmp.resolve("out");
    JobRunner.Result run = JobRunner.run(tmp, "input { path = \"" + input + "\", "
        + "text-column = text }", "model.path = \"" + cases().folder("qwen3-reranker-seq-cls")
        + "\"", "output.path = \"" + output + "\"");
    assertEquals(0, run.code(), run.error());
    List<Row> rejects = SparkTestSession.get().read().parquet(output.resolve("rejects")
        .toString()).collectAsList();
    assertEquals(1, rejects.size(), rejects.toString());
    assertEquals("empty", rejects.get(0).getAs("id"));
    assertEquals("no-token", rejects.get(0).getAs("reject_rule"));
    assertEquals(2, SparkTestSession.get().read().parquet(output.resolve("embeddings")
        .toString()).count());
    String summary = Files.readString(output.resolve("run-summary.json"));
    assertTrue(summary.contains("\"rows_rejected\" : 1"), summary);
  }
}
