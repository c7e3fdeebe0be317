package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mistral folders (src/test/resources/mistral-cases, made by jobs/samples/make_mistral_cases.py:
 * random checkpoints with e5-mistral-7b-instruct's config.json keys, F16 shards, a Llama-form
 * tokenizer.json with byte fallback that adds only <s> and e5-mistral's tokenizer_config.json,
 * whose add_eos_token ends every text in </s>; a sliding window of 6 keys; and a
 * MistralForCausalLM in BF16 under `model.` with head_dim twice E / H and no window; reference
 * ids from Hugging Face's Rust tokenizer on the template LlamaTokenizerFast builds, outputs from a
 * float64 port of modeling_mistral.py), through the job and the Transformer.
 */
class MistralFoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  private FolderCases cases() {
    return new FolderCases("mistral-cases", tmp);
  }

  /**
   * e5-mistral as downloaded, its web-search instruction before every text: <s> … </s>, each
   * query seeing its 6 keys, the last token's state pooled.
   */
  @Test
  void e5MistralFolderWithItsInstructionEqualsThePort() throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer("e5-mistral", 96, "mistral",
        "web_search_query");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /** A language model without a window, heads wider than E / H, its last token asked for. */
  @Test
  void causalLanguageModelFolderEqualsThePort() throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer("mistral-causal-lm", 96, "mistral", "",
        "last");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /** What Mistral can be and this job does not run is refused, in one line each. */
  @Test
  void variantsTheJobDoesNotRunAreRefusedInOneLine() throws Exception {
    String config = Files.readString(cases().folder("e5-mistral").resolve("config.json"));
    cases().assertRefusedInOneLine(Map.of(
        config.replace("\"sliding_window\": 6", "\"sliding_window\": 1"),
        "sliding_window = 1 is not supported (at least 2 keys, or null)",
        config.replace("\"rope_theta\"", "\"rope_scaling\": {\"type\": \"linear\"},\n  "
            + "\"rope_theta\""), "rope_scaling {\"type\":\"linear\"} is not supported",
        config.replace("\"num_key_value_heads\": 2", "\"num_key_value_heads\": 3"),
        "num_key_value_heads = 3 does not divide num_attention_heads = 4"));
  }
}
