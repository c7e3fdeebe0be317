package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Gemma3 folders (model_type gemma3_text; src/test/resources/gemma3-cases, made by
 * jobs/samples/make_gemma3_cases.py: random checkpoints with EmbeddingGemma's config.json keys and
 * tensor names and a SentencePiece-BPE-like tokenizer with byte fallback; as EmbeddingGemma, F32,
 * bidirectional, sliding and full layers by layer_types, its sentence-transformers pipeline with
 * two Dense modules and its query prompt, and as a causal BF16 model under `model.` with a
 * sliding-window pattern; reference ids from Hugging Face's Rust tokenizer, outputs from a
 * float64 PyTorch port of modeling_gemma3.py), through the job and the Transformer.
 */
class Gemma3FoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  private FolderCases cases() {
    return new FolderCases("gemma3-cases", tmp);
  }

  /** With the query prompt; mean pooling, both Dense modules, Normalize. */
  @Test
  void embeddingGemmaFolderWithItsQueryPromptEqualsThePort() throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer("gemma3-embedding", 48, "gemma3",
        "query");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /** A language model without sentence-transformers files: its last token's state, asked for. */
  @Test
  void causalFolderWithASlidingWindowPatternEqualsThePort() throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer("gemma3-causal", 48, "gemma3", "",
        "last");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /** What Gemma3 can be and this job does not run is refused, in one line each. */
  @Test
  void variantsTheJobDoesNotRunAreRefusedInOneLine() throws Exception {
    String config = Files.readString(cases().folder("gemma3-embedding").resolve("config.json"));
    cases().assertRefusedInOneLine(Map.of(
        config.replace("\"attn_logit_softcapping\": null", "\"attn_logit_softcapping\": 50.0"),
        "attn_logit_softcapping 50.0 is not supported (null)",
        config.replace("\"rope_scaling\": null", "\"rope_scaling\": {\"rope_type\": \"linear\", "
            + "\"factor\": 8.0}"), "rope_scaling {\"rope_type\":\"linear\",\"factor\":8.0} is not"
            + " supported"));
  }
}
