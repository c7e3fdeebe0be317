package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * MPNet folders (src/test/resources/mpnet-cases, made by jobs/samples/make_mpnet_cases.py: random
 * checkpoints saved as MPNetModel, F32, with all-mpnet-base-v2's config.json and
 * sentence-transformers files, and as MPNetForMaskedLM, BF16, `mpnet.` prefix with lm_head.*;
 * all-mpnet-base-v2's WordPiece tokenizer form; reference ids from Hugging Face's Rust
 * tokenizer, outputs from a float64 PyTorch port of modeling_mpnet.py): texts in eight
 * languages, emoji, the empty string, and texts of up to 128 tokens, whose relative distances
 * reach the log-spaced and the last bucket, through the job and the Transformer.
 */
class MpNetFoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  @ParameterizedTest
  @ValueSource(strings = {"mpnet-embedding", "mpnet-mlm"})
  void hiddenStatesAndVectorsEqualThePortThroughTheJobAndTheTransformer(String name)
      throws Exception {
    FolderCases.Worst worst = new FolderCases("mpnet-cases", tmp)
        .jobAndTransformer(name, 128, "mpnet");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  @Test
  void bucketCountsThatAreNotEvenAreRefusedInOneLine() throws Exception {
    new FolderCases("mpnet-cases", tmp).assertRefusedInOneLine(Map.of(
        "{\"model_type\": \"mpnet\", \"relative_attention_num_buckets\": 31, "
            + "\"num_hidden_layers\": 2, \"hidden_size\": 32, \"num_attention_heads\": 4, "
            + "\"intermediate_size\": 64, \"max_position_embeddings\": 514}",
        "relative_attention_num_buckets = 31, expected an even number of at least 4"));
  }
}
