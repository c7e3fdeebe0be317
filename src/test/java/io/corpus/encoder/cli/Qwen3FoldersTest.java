package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.pipeline.EncoderTransformer;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
import io.corpus.encoder.weights.WeightsException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Qwen3 folders (src/test/resources/qwen3-cases, made by jobs/samples/make_qwen3_cases.py:
 * random BF16 checkpoints with Qwen3-Embedding's config.json keys and tensor names, a
 * byte-level BPE tokenizer of Qwen's form that appends <|endoftext|>; as Qwen3Model with
 * grouped-query heads of head_dim 16 in a width of 32, last-token pooling and the query
 * instruction, and as Qwen3ForCausalLM under `model.`; reference ids from Hugging Face's Rust
 * tokenizer, outputs from a float64 PyTorch port of modeling_qwen3.py), through the job and
 * the Transformer.
 */
class Qwen3FoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  private FolderCases cases() {
    return new FolderCases("qwen3-cases", tmp);
  }

  /** With the folder's query instruction before every text; the last token's state, pooled. */
  @Test
  void embeddingFolderWithItsQueryInstructionEqualsThePort() throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer("qwen3-embedding", 160, "qwen3",
        "query");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /** A language model without sentence-transformers files: its last token's state, asked for. */
  @Test
  void causalLanguageModelFolderWithOneKvHeadEqualsThePort() throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer("qwen3-causal-lm", 160, "qwen3", "",
        "last");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /**
   * Token ids padded on the left (as Qwen3-Embedding's tokenizer pads) and on the right, with
   * their masks, through the Transformer: both give the port's vectors, the last real token's
   * state, not the padding's.
   */
  @Test
  void leftAndRightPaddedIdsGiveThePortsVectors() throws Exception {
    SparkSession spark = SparkTestSession.get();
    JsonNode texts = cases().json("qwen3-embedding", "texts.json");
    for (boolean left : new boolean[] {true, false}) {
      Dataset<Row> rows = FolderCases.paddedIds(spark, texts, 342, left);   // <|endoftext|>
      Map<String, Row> out = FolderCases.byId(new EncoderTransformer()
          .setModelPath(cases().folder("qwen3-embedding").toString()).setIdsCol("ids")
          .setMaskCol("mask").setMaxTokens(160).setBatchTokens(256)
          .transform(rows).collectAsList());
      for (JsonNode t : texts) {
        double[] got = SparkInputs.vector(out.get(t.get("id").asText()).getAs("pooled"));
        double[] want = new double[got.length];
        for (int i = 0; i < want.length; i++) {
          want[i] = t.get("pooled").get(i).asDouble();
        }
        double error = 1 - Tolerances.cosine(got, want);
        assertTrue(error <= 1e-6, (left ? "left" : "right") + " padding, "
            + t.get("id").asText() + ": 1 - cosine " + error);
      }
    }
  }

  /**
   * --check says how the heads are shaped, what memory the model and a task slot take, and the
   * instruction on one line (its newline escaped).
   */
  @Test
  void checkSaysTheHeadsTheMemoryAndTheInstruction() throws Exception {
    Path config = tmp.resolve("check.conf");
    Files.writeString(config, "input { path = \""
        + SharedModels.miniLm().resolve("expected/texts.parquet")
        + "\", text-column = text, prompt-name = query }\nmodel.path = \""
        + cases().folder("qwen3-embedding") + "\"\noutput.path = \"" + tmp.resolve("never")
        + "\"\n");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertEquals(0, new EncodeCommand(new PrintStream(out),
        new PrintStream(new ByteArrayOutputStream())).run(new String[] {"--config",
            config.toString(), "--check"}));
    String said = out.toString(StandardCharsets.UTF_8);
    assertTrue(said.contains("attention: 4 heads of 16 values on 2 KV heads; RMS norms; "
        + "causal\n"), said);
    assertTrue(said.contains("memory: 0.1 MB of float32 weights on the driver and on each "
        + "executor; 5.0 MB of work buffers a task slot at 4,096 batch tokens"), said);
    assertTrue(said.contains("prompt: 'Instruct: Given a web search query, retrieve relevant "
        + "passages that answer the query\\nQuery:' (query)\n"), said);
    assertTrue(said.contains("pooling last, normalized"), said);
  }

  /** What Qwen3 can be and this job does not run is refused, in one line each. */
  @Test
  void variantsTheJobDoesNotRunAreRefusedInOneLine() throws Exception {
    String config = Files.readString(cases().folder("qwen3-embedding").resolve("config.json"));
    cases().assertRefusedInOneLine(Map.of(
        config.replace("\"use_sliding_window\": false", "\"use_sliding_window\": true"),
        "use_sliding_window = true is not supported",
        config.replace("\"rope_scaling\": null", "\"rope_scaling\": {\"rope_type\": \"yarn\", "
            + "\"factor\": 4.0}"), "rope_scaling {\"rope_type\":\"yarn\",\"factor\":4.0} is not "
            + "supported",
        config.replace("\"num_key_value_heads\": 2", "\"num_key_value_heads\": 3"),
        "num_key_value_heads = 3 does not divide num_attention_heads = 4",
        // a base of 0 once ran the model without rotary positions, silently
        config.replace("\"rope_theta\": 1000000.0", "\"rope_theta\": 0"),
        "rope_theta is 0, expected a positive number",
        config.replace("Qwen3ForCausalLM", "Qwen3ForTokenClassification"),
        "names a token-classification head, which this job reads for bert, xlm-roberta, "
            + "modernbert, mpnet, distilbert and deberta-v2 but not for qwen3"));
  }

  /**
   * A Qwen3 language model with no sentence-transformers files, as Qwen3-Reranker comes, is
   * refused under the default pooling, in the job before Spark and in the Transformer; asked
   * for, its last token's state is encoded (the test above).
   */
  @Test
  void languageModelFolderWithoutModulesIsRefusedUnderAutoPooling() throws Exception {
    Path folder = cases().folder("qwen3-causal-lm");
    Path config = tmp.resolve("reranker.conf");
    Files.writeString(config, "input { path = \""
        + SharedModels.miniLm().resolve("expected/texts.parquet") + "\", text-column = text }\n"
        + "model.path = \"" + folder + "\"\noutput.path = \"" + tmp.resolve("never") + "\"\n");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertEquals(1, new EncodeCommand(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString(), "--check"}));
    String said = err.toString(StandardCharsets.UTF_8);
    assertTrue(said.contains("holds a causal language model (qwen3) with no sentence-transformers"
        + " modules.json"), said);
    assertTrue(said.contains("set the pooling (output.pooling) to last or mean"), said);
    assertTrue(!Files.exists(tmp.resolve("never")));
    WeightsException e = assertThrows(WeightsException.class, () -> new EncoderTransformer()
            .setModelPath(folder.toString()).setTextCol("text")
            .transformSchema(new StructType().add("id", DataTypes.StringType)
                .add("text", DataTypes.StringType)));
    assertTrue(e.getMessage().contains("Qwen3-Reranker"), e.getMessage());
  }

  /**
   * pplx-embed-v1 (bidirectional_pplx_qwen3, its own code by auto_map): Qwen3's layers attending
   * both ways, head_dim 16 where E / H is 8, mean pooling and no Normalize: the job's vectors
   * keep the mean's norm.
   */
  @Test
  void bidirectionalPplxFolderEqualsThePortUnnormalized() throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer("pplx-embed", 64, "qwen3");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
    SparkSession spark = SparkTestSession.get();
    JsonNode texts = cases().json("pplx-embed", "texts.json");
    Map<String, Row> out = FolderCases.byId(new EncoderTransformer()
        .setModelPath(cases().folder("pplx-embed").toString()).setTextCol("text")
        .setMaxTokens(64).transform(spark.read().parquet(cases().parquet(spark, texts, false)
            .toString())).collectAsList());
    for (JsonNode t : texts) {
      JsonNode states = t.get("last_hidden_state");
      double[] mean = new double[states.get(0).size()];
      for (JsonNode row : states) {
        for (int c = 0; c < mean.length; c++) {
          mean[c] += row.get(c).asDouble() / states.size();
        }
      }
      double want = Math.sqrt(java.util.Arrays.stream(mean).map(v -> v * v).sum());
      double[] got = SparkInputs.vector(out.get(t.get("id").asText()).getAs("pooled"));
      double norm = Math.sqrt(java.util.Arrays.stream(got).map(v -> v * v).sum());
      assertTrue(Math.abs(norm - want) <= 1e-4 * want, t.get("id").asText() + ": norm " + norm
          + ", the mean's " + want);
    }
  }

  /**
   * pplx's tokenizer appends nothing: the empty text and a blank one (stripped, as
   * sentence-transformers strips it) give no token and are set aside with their reason.
   */
  @Test
  void pplxTextsOfNoTokenAreSetAside() throws Exception {
    Path input = cases().parquet(SparkTestSession.get(), new com.fasterxml.jackson.databind
        .ObjectMapper().readTree("[{\"id\": \"empty\", \"a\": \"\"}, {\"id\": \"blank\", \"a\": "
        + "\"  \"}, {\"id\": \"word\", \"a\": \"word\"}]"), false);
    Path output = tmp.resolve("out");
    JobRunner.Result run = JobRunner.run(tmp, "input { path = \"" + input + "\", "
        + "text-column = text }", "model.path = \"" + cases().folder("pplx-embed") + "\"",
        "output.path = \"" + output + "\"");
    assertEquals(0, run.code(), run.error());
    java.util.List<Row> rejects = SparkTestSession.get().read().parquet(output.resolve("rejects")
        .toString()).collectAsList();
    assertEquals(java.util.Set.of("empty", "blank"), rejects.stream()
        .map(r -> (String) r.getAs("id")).collect(java.util.stream.Collectors.toSet()));
    assertTrue(rejects.stream().allMatch(r -> r.getAs("reject_rule").equals("no-token")));
    assertEquals(1, SparkTestSession.get().read().parquet(output.resolve("embeddings")
        .toString()).count());
  }
}
