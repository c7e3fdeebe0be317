package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * DeBERTa-v2 and v3 folders (src/test/resources/deberta-cases, made by
 * jobs/samples/make_deberta_cases.py: random checkpoints saved as DebertaV2Model, F32, with a
 * sentence-transformers pipeline, and as DebertaV2ForSequenceClassification, `deberta.` prefix:
 * a v3 NLI cross-encoder (F32, three labels) and a v2-style reranker (F16, separate position
 * projections, unbucketed distances, absolute positions and token types, one label with a
 * CrossEncoder's Sigmoid); SentencePiece-Unigram tokenizer.json of DebertaV2Converter's form;
 * reference ids from Hugging Face's Rust tokenizer, outputs from a float64 PyTorch port of
 * modeling_deberta_v2.py), through the job and the Transformer.
 */
class DebertaFoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  /** Log buckets up to max_position_embeddings, shared projections, normalized embeddings. */
  @Test
  void embeddingFolderEqualsThePort() throws Exception {
    FolderCases.Worst worst = new FolderCases("deberta-cases", tmp)
        .jobAndTransformer("deberta-v3-embedding", 48, "deberta-v2");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /** The ContextPooler (dense, GELU on the first token), classifier; texts and pairs. */
  @ParameterizedTest
  @ValueSource(strings = {"deberta-v3-nli", "deberta-v2-reranker"})
  void crossEncodersScoreTextsAndPairsAsThePort(String name) throws Exception {
    double worst = new FolderCases("deberta-cases", tmp).classifierWorst(name, 48, "deberta-v2");
    assertTrue(worst <= TOLERANCE, "worst relative error " + worst);
  }

  /** What this job does not compute, or a config that cannot be, is refused in one line. */
  @Test
  void otherFormsAreRefusedInOneLine() throws Exception {
    FolderCases cases = new FolderCases("deberta-cases", tmp);
    String config = Files.readString(cases.folder("deberta-v3-nli").resolve("config.json"));
    cases.assertRefusedInOneLine(Map.of(
        config.replaceFirst("\\{", "{\"conv_kernel_size\": 3, "),
        "conv_kernel_size = 3 asks for the convolution after the first layer",
        config.replace("\"pooler_hidden_act\": \"gelu\"", "\"pooler_hidden_act\": \"silu\""),
        "pooler_hidden_act 'silu' is not supported",
        config.replaceFirst("\\{", "{\"embedding_size\": 16, "),
        "must equal hidden_size 24 here (no embed_proj)",
        config.replace("\"position_buckets\": 16", "\"position_buckets\": 50"),
        "position_buckets 50 with max_relative_positions 24 gives no log-spaced buckets"));
  }
}
