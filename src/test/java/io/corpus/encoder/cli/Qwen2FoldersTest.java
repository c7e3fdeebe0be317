package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Qwen2 folders (src/test/resources/qwen2-cases, made by jobs/samples/make_qwen2_cases.py:
 * random checkpoints with gte-Qwen2's config.json keys, `"is_causal": false` and auto_map, F32
 * in two shards, biases on q/k/v, a byte-level BPE tokenizer.json of Qwen2's form that appends
 * nothing and a tokenizer_config.json whose add_eos_token appends <|endoftext|>; and a causal
 * Qwen2ForCausalLM in BF16 under `model.`; reference ids from Hugging Face's Rust tokenizer on
 * the template gte-Qwen2's tokenizer class builds, outputs from a float64 port of
 * modeling_qwen2.py), through the job and the Transformer.
 */
class Qwen2FoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  private FolderCases cases() {
    return new FolderCases("qwen2-cases", tmp);
  }

  /**
   * gte-Qwen2 as downloaded, its query instruction before every text: every key seen from every
   * query, <|endoftext|> appended, the last token's state pooled.
   */
  @Test
  void gteQwen2FolderWithItsQueryInstructionEqualsThePort() throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer("gte-qwen2", 160, "qwen2", "query");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /** A causal language model with one KV head, under `model.`, its last token asked for. */
  @Test
  void causalLanguageModelFolderEqualsThePort() throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer("qwen2-causal-lm", 160, "qwen2", "",
        "last");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /** What Qwen2 can be and this job does not run is refused, in one line each. */
  @Test
  void variantsTheJobDoesNotRunAreRefusedInOneLine() throws Exception {
    String config = Files.readString(cases().folder("gte-qwen2").resolve("config.json"));
    cases().assertRefusedInOneLine(Map.of(
        config.replace("\"use_sliding_window\": false", "\"use_sliding_window\": true"),
        "use_sliding_window = true is not supported",
        config.replace("\"rope_theta\"", "\"rope_scaling\": {\"type\": \"yarn\"},\n  "
            + "\"rope_theta\""), "rope_scaling {\"type\":\"yarn\"} is not supported",
        config.replace("\"num_key_value_heads\": 2", "\"num_key_value_heads\": 3"),
        "num_key_value_heads = 3 does not divide num_attention_heads = 4"));
  }
}
