package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NomicBERT folders (src/test/resources/nomic-cases, made by jobs/samples/make_nomic_cases.py:
 * random checkpoints saved as nomic-embed-text-v1.5's, F32, with its config.json (auto_map
 * included), SwiGLU and no biases, its sentence-transformers files and prompts, and as
 * NomicBertForPreTraining, BF16, `bert.` prefix, a GELU feed-forward with biases and rotary
 * positions on half of each head in interleaved pairs; WordPiece tokenizer of
 * bert-base-uncased's form; reference ids from Hugging Face's Rust tokenizer, outputs from a
 * float64 PyTorch port of modeling_hf_nomic_bert.py), through the job and the Transformer.
 */
class NomicFoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  private FolderCases cases() {
    return new FolderCases("nomic-cases", tmp);
  }

  /** With the folder's "query" prompt (search_query: ) before every text, as the port has it. */
  @Test
  void embeddingFolderWithItsQueryPromptEqualsThePort() throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer("nomic-embed", 64, "nomic_bert",
        "query");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  @Test
  void pretrainingFolderWithRotaryOnHalfOfEachHeadEqualsThePort() throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer("nomic-pretraining", 64, "nomic_bert");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /**
   * nomic-embed-text-v2-moe's form: every second layer routes each token to its top 2 of 4
   * experts (MegaBlocks' w1 and w2, both stored (X·F, E)), weighted by their probabilities as
   * they are; XLM-R's tokenizer, the query prompt.
   */
  @Test
  void mixtureOfExpertsFolderEqualsThePort() throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer("nomic-moe", 48, "nomic_bert", "",
        "auto", "query");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /** What NomicBERT's code can do and this job does not is refused, in one line each. */
  @Test
  void variantsTheJobDoesNotRunAreRefusedInOneLine() throws Exception {
    String shape = "\"model_type\": \"nomic_bert\", \"n_layer\": 2, \"n_embd\": 32, "
        + "\"n_head\": 4, \"n_inner\": 48, \"n_positions\": 8192, \"rotary_emb_fraction\": 1.0, ";
    cases().assertRefusedInOneLine(Map.of(
        "{" + shape + "\"prenorm\": true}", "prenorm = true is not supported",
        "{" + shape + "\"rotary_scaling_factor\": 2.0}", "rotary_scaling_factor = 2.0 is not",
        "{" + shape + "\"moe_every_n_layers\": 2, \"num_experts\": 4, \"moe_top_k\": 2, "
            + "\"activation_function\": \"swiglu\"}", "activation_function swiglu with "
            + "moe_every_n_layers = 2 is not supported",
        "{" + shape + "\"moe_every_n_layers\": 2, \"num_experts\": 2, \"moe_top_k\": 3}",
        "moe_top_k = 3 of num_experts = 2",
        // a string once passed as "as routed"; MegaBlocks would take it as a torch.norm p
        "{" + shape + "\"moe_every_n_layers\": 2, \"num_experts\": 4, \"moe_top_k\": 2, "
            + "\"moe_normalize_expert_weights\": \"l2\"}",
        "moe_normalize_expert_weights = \"l2\" is not supported",
        "{" + shape + "\"activation_function\": \"swiglu\", \"mlp_fc1_bias\": true, "
            + "\"mlp_fc2_bias\": false}", "mlp_fc1_bias and mlp_fc2_bias differ",
        "{" + shape + "\"auto_map\": {\"AutoModel\": \"someone/x--modeling.OtherModel\"}}",
        "auto_map names custom modelling code"));
  }
}
