package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * EuroBERT folders (src/test/resources/llama-cases, made by jobs/samples/make_llama_cases.py:
 * random checkpoints saved as EuroBERT-210m's EuroBertForMaskedLM is, F32 with an untied
 * lm_head, and as a sentence-transformers EuroBertModel of jina-embeddings-v5-text-nano's form;
 * a tokenizer of Llama 3's form with `<|begin_of_text|> $A <|end_of_text|>`; reference ids from
 * Hugging Face's Rust tokenizer, outputs from a float64 port of modeling_eurobert.py), through the
 * job and the Transformer.
 */
class EuroBertFoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  private FolderCases cases() {
    return new FolderCases("llama-cases", tmp);
  }

  /**
   * The masked-LM checkpoint (model. prefix, lm_head left out), bidirectional, with no
   * sentence-transformers files: the mean of its states, as for any encoder without them.
   */
  @Test
  void maskedLanguageModelFolderEqualsThePort() throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer("eurobert-mlm", 48, "eurobert");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /**
   * jina-v5-nano's form: queries take the folder's "Query: " prompt; the last token's state
   * (the appended end of text, also when the text is cut), normalized.
   */
  @Test
  void embedderFolderAsQueriesEqualsThePort() throws Exception {
    FolderCases.Worst worst = cases().jobAndTransformer("eurobert-embedder", 48, "eurobert", "",
        "auto", "query");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /** EuroBERT's classifier and an mlp_bias are refused, in one line each. */
  @Test
  void variantsTheJobDoesNotRunAreRefusedInOneLine() throws Exception {
    String config = Files.readString(cases().folder("eurobert-mlm").resolve("config.json"));
    cases().assertRefusedInOneLine(Map.of(
        config.replace("\"EuroBertForMaskedLM\"", "\"EuroBertForSequenceClassification\""),
        "names a sequence-classification head, which this job reads for",
        config.replace("\"mlp_bias\": false", "\"mlp_bias\": true"),
        "mlp_bias = true is not supported"));
  }
}
