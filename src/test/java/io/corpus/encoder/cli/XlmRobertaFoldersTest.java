package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * XLM-RoBERTa folders (src/test/resources/xlmr-cases, made by jobs/samples/make_xlmr_cases.py: random
 * checkpoints saved as XLMRobertaModel and XLMRobertaForSequenceClassification with a Unigram
 * tokenizer.json; reference ids from Hugging Face's Rust tokenizer, outputs from a float64
 * PyTorch port): texts in nine languages, emoji, an unknown character, the empty string and a
 * text past the limit, through the job and the Transformer, in batches with padding.
 */
class XlmRobertaFoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  private FolderCases cases() {
    return new FolderCases("xlmr-cases", tmp);
  }

  private Map<String, Row> runJob(String name, Path input, boolean pairs, String extra)
      throws Exception {
    return cases().runJob(name, input, pairs, extra, "xlm-roberta");
  }

  /**
   * XLM-R's Unigram folder, RoBERTa's (model_type roberta), whose tokenizer is BPE, and
   * CamemBERT's (model_type camembert), whose <s> and </s> are ids 5 and 6.
   */
  @ParameterizedTest
  @ValueSource(strings = {"xlmr-embedding", "roberta-bpe-embedding", "camembert-embedding"})
  void sentenceVectorsAndHiddenStatesEqualThePortThroughTheJobAndTheTransformer(String name)
      throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer(name, 32, "xlm-roberta");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "sentence vectors " + worst.cosine());
  }

  /** Without input.max-tokens, a text is cut at P − 2 tokens: RoBERTa's positions start at 2. */
  @Test
  void theTokenLimitIsThePositionsAfterThePaddingIndex() throws Exception {
    SparkSession spark = SparkTestSession.get();
    JsonNode texts = cases().json("xlmr-embedding", "texts.json");
    Map<String, Row> rows = runJob("xlmr-embedding", cases().parquet(spark, texts, false), false,
        "");
    Row longest = rows.get("long");
    List<Integer> ids = longest.getList(longest.fieldIndex("input_ids"));
    assertEquals(64, ids.size(), "66 positions less the 2 before the first");
    assertEquals(2, ids.get(63), "the closing </s> stays");
  }

  @ParameterizedTest
  @ValueSource(strings = {"xlmr-3-labels", "xlmr-cross-encoder-1-label"})
  void classifierScoresTextsAndPairsAsThePort(String name) throws Exception {
    double worst = cases().classifierWorst(name, 32, "xlm-roberta");
    assertTrue(worst <= TOLERANCE, "worst relative error " + worst);
  }

  /** Folders of other families, remote code and other positions: one line, naming what it found. */
  @Test
  void otherFoldersAreRefusedInOneLine() throws Exception {
    String config = Files.readString(cases().folder("xlmr-embedding").resolve("config.json"));
    Map<String, String> refused = Map.of(
        config.replace("\"xlm-roberta\"", "\"funnel\""),
        "model_type 'funnel' is not supported; this job runs bert",
        config.replace("{", "{\"auto_map\": {\"AutoModel\": \"modeling.X\"}, "),
        "auto_map names custom modelling code",
        config.replace("\"absolute\"", "\"alibi\""),
        "position_embedding_type 'alibi' is not supported",
        config.replace("\"gelu\"", "\"quick_gelu\""),
        "hidden_act 'quick_gelu' is not supported");
    cases().assertRefusedInOneLine(refused);
  }
}
