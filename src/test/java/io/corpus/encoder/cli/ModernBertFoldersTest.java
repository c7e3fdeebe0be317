package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.model.FeedForward;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.text.TextTokenizer;
import io.corpus.encoder.weights.FolderWeights;
import io.corpus.encoder.weights.ModelFolder;
import io.corpus.encoder.weights.WeightsLoader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
 * ModernBERT folders (src/test/resources/modernbert-cases, made by
 * jobs/samples/make_modernbert_cases.py: random checkpoints saved as ModernBertModel, BF16, with a
 * transformers 4.x config.json and no biases, and as ModernBertForMaskedLM, F32, `model.`
 * prefix, a 5.x config.json and every bias; byte-level BPE tokenizer.json; reference ids from
 * Hugging Face's Rust tokenizer, outputs from a float64 PyTorch port of modeling_modernbert.py):
 * texts in eight languages, emoji, the empty string, texts longer than the local window and one
 * past the token limit, through the job and the Transformer, in batches with padding.
 */
class ModernBertFoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  private FolderCases cases() {
    return new FolderCases("modernbert-cases", tmp);
  }

  @ParameterizedTest
  @ValueSource(strings = {"modernbert-embedding", "modernbert-mlm"})
  void hiddenStatesAndVectorsEqualThePortThroughTheJobAndTheTransformer(String name)
      throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer(name, 40, "modernbert");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /**
   * ModernBertForSequenceClassification: a reranker (one label, mean of the states, no biases,
   * sigmoid) and a 3-label classifier (the first token, every bias, softmax), on texts and on
   * pairs ([CLS] a [SEP] b [SEP], cut longest-first), as the port's pooled state, head.dense,
   * GELU, head.norm and classifier give them.
   */
  @ParameterizedTest
  @ValueSource(strings = {"modernbert-reranker", "modernbert-3-labels"})
  void classifierScoresTextsAndPairsAsThePort(String name) throws Exception {
    double worst = cases().classifierWorst(name, 40, "modernbert");
    assertTrue(worst <= TOLERANCE, "worst relative error " + worst);
  }

  /**
   * A text of more than 512 tokens keeps them all up to the limit asked for: the tokenizer
   * library caps its cut at a "model max length" of 512 unless told otherwise, which would cut
   * 8,192-token models short.
   */
  @Test
  void longTextsAreCutAtTheLimitAskedForNotAt512() {
    String text = "Rotary positions reach far beyond five hundred and twelve tokens. ".repeat(60);
    Path tokenizer = cases().folder("modernbert-embedding").resolve("tokenizer.json");
    try (TextTokenizer uncut = TextTokenizer.open(tokenizer, 100_000);
        TextTokenizer cut = TextTokenizer.open(tokenizer, 1500)) {
      int length = uncut.encode(text).ids().length;
      assertTrue(length > 1500, "the text has " + length + " tokens");
      int[] ids = cut.encode(text).ids();
      assertEquals(1500, ids.length);
      assertEquals("[SEP]", cut.encode(text).tokens()[1499], "the closing token stays");
    }
  }

  /**
   * Maps, statistics, rollout and the report work for ModernBERT as for BERT: the maps of a
   * local layer are zero beyond its window (local_attention 8: 4 positions either side) and
   * those of a global layer are not; every row sums to 1; the report's head view shows the
   * tokenizer's pieces.
   */
  @Test
  void attentionMapsShowTheLocalWindowAndTheReportIsWritten() throws Exception {
    SparkSession spark = SparkTestSession.get();
    JsonNode texts = cases().json("modernbert-embedding", "texts.json");
    Path input = cases().parquet(spark, texts, false);
    Path output = tmp.resolve("maps");
    JobRunner.Result run = JobRunner.run(tmp,
        "input { path = \"" + input + "\", text-column = text, max-tokens = 40 }",
        "model.path = \"" + cases().folder("modernbert-embedding") + "\"",
        "output { path = \"" + output + "\", attention { enabled = true, layers = [0, 1], "
            + "stats = true, rollout = true }, report.enabled = true }");
    assertEquals(0, run.code(), run.error());
    Row window = spark.read().parquet(output.resolve("attention").toString())
        .where(col("id").equalTo("window")).where(col("head").equalTo(0))
        .orderBy("layer").collectAsList().get(1);
    assertEquals(1, (int) window.getAs("layer"));
    double[][] local = SparkInputs.matrix(window.getAs("weights"));
    double beyond = 0;
    for (int q = 0; q < local.length; q++) {
      double sum = 0;
      for (int k = 0; k < local.length; k++) {
        sum += local[q][k];
        beyond += Math.abs(q - k) > 4 ? local[q][k] : 0;
      }
      assertEquals(1, sum, 1e-5, "row " + q);
    }
    assertEquals(0, beyond, "weights beyond the window");
    Row global = spark.read().parquet(output.resolve("attention").toString())
        .where(col("id").equalTo("window")).where(col("head").equalTo(0))
        .where(col("layer").equalTo(0)).first();
    assertTrue(SparkInputs.matrix(global.getAs("weights"))[39][0] > 0, "layer 0 is global");
    String html = Files.readString(output.resolve("report/index.html"));
    String marker = "<script type=\"application/json\" id=\"report-data\">";
    int from = html.indexOf(marker) + marker.length();
    JsonNode sequence = new ObjectMapper().readTree(html.substring(from,
        html.indexOf("</script>", from)).replace("<\\/", "</")).get("sequences").get(0);
    JsonNode expected = null;
    for (JsonNode t : texts) {
      expected = t.get("id").asText().equals(sequence.get("id").asText()) ? t : expected;
    }
    assertEquals(expected.get("tokens"), sequence.get("tokens"), "the head view's tokens");
  }

  /** jobs/encode --check names the family and how each run of layers attends. */
  @Test
  void checkNamesTheFamilyAndTheLayerPattern() throws Exception {
    Path config = tmp.resolve("check.conf");
    Files.writeString(config, "input { path = \""
        + SharedModels.miniLm().resolve("expected/texts.parquet")
        + "\", text-column = text }\nmodel.path = \"" + cases().folder("modernbert-embedding")
        + "\"\noutput.path = \"" + tmp.resolve("never") + "\"\n");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertEquals(0, new EncodeCommand(new PrintStream(out),
        new PrintStream(new ByteArrayOutputStream())).run(new String[] {"--config",
            config.toString(), "--check"}));
    String said = out.toString(StandardCharsets.UTF_8);
    assertTrue(said.contains("modernbert-embedding (modernbert); 4 layers, E = 32"), said);
    assertTrue(said.contains("layers: 0 global (rotary θ 160000), 1-2 window ±4 (rotary θ "
        + "10000), 3 global (rotary θ 160000)"), said);
  }

  /** The masked-LM checkpoint's head is left out and listed; the encoder's tensors all used. */
  @Test
  void theMaskedLmHeadIsLeftOutAndListed() {
    FolderWeights weights = WeightsLoader.load(ModelFolder.read(
        cases().folder("modernbert-mlm")));
    assertEquals(List.of("head.dense.weight", "head.norm.weight", "head.norm.bias",
        "decoder.bias"), weights.leftOut());
    assertEquals(3, weights.encoder().layerCount());
    assertTrue(weights.encoder().layers().get(1).feedForward() instanceof FeedForward.Gated);
  }

  /** What the job does not run is refused before Spark, in one line naming what it found. */
  @Test
  void unsupportedModernBertFoldersAreRefusedInOneLine() throws Exception {
    String v4 = Files.readString(cases().folder("modernbert-embedding").resolve("config.json"));
    String v5 = Files.readString(cases().folder("modernbert-mlm").resolve("config.json"));
    Map<String, String> refused = Map.of(
        v5.replaceFirst(",\\s*\"full_attention\"\\s*]", "]"),
        "layer_types has 2 entries for 3 layers (num_hidden_layers); expected one per layer",
        v5.replaceFirst("\"sliding_attention\"", "\"full_attention\""),
        "layer_types[1] is 'full_attention' but global_attn_every_n_layers = 2 makes layer 1 "
            + "sliding_attention",
        v5.replaceFirst("\"rope_type\": \"default\"", "\"rope_type\": \"yarn\""),
        "rope_parameters.full_attention.rope_type 'yarn' is not supported",
        Files.readString(cases().folder("modernbert-reranker").resolve("config.json"))
            .replace("\"classifier_pooling\": \"mean\"", "\"classifier_pooling\": \"max\""),
        "classifier_pooling 'max' is not supported (cls, mean)",
        v4.replace("\"hidden_activation\": \"gelu\"", "\"hidden_activation\": \"quick_gelu\""),
        "hidden_activation 'quick_gelu' is not supported",
        // a string once became the default of 128 keys, silently
        v4.replace("\"local_attention\": 8", "\"local_attention\": \"8\""),
        "local_attention is \"8\", expected a positive integer");
    cases().assertRefusedInOneLine(refused);
  }
}
