package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.SharedModels;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
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

  @Test
  void causalLanguageModelFolderWithOneKvHeadEqualsThePort() throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer("qwen3-causal-lm", 160, "qwen3");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
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
    assertEquals(0, new EncodeJob.CommandLine(new PrintStream(out),
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
        "num_key_value_heads = 3 does not divide num_attention_heads = 4"));
  }
}
