package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DistilBERT folders (src/test/resources/distilbert-cases, made by
 * jobs/samples/make_distilbert_cases.py: random checkpoints saved as DistilBertModel, F32, with a
 * sentence-transformers pipeline, and as DistilBertForSequenceClassification, F16,
 * `distilbert.` prefix, sinusoidal positions, NEGATIVE and POSITIVE; WordPiece tokenizer of
 * distilbert-base-uncased's form; reference ids from Hugging Face's Rust tokenizer, outputs from
 * a float64 PyTorch port of modeling_distilbert.py), through the job and the Transformer.
 */
class DistilBertFoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  @Test
  void embeddingFolderEqualsThePort() throws Exception {
    FolderCases.Worst worst = new FolderCases("distilbert-cases", tmp)
        .jobAndTransformer("distilbert-embedding", 48, "distilbert");
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }

  /** pre_classifier, ReLU, classifier on the first token; texts and pairs; softmax scores. */
  @Test
  void sentimentClassifierScoresTextsAndPairsAsThePort() throws Exception {
    double worst = new FolderCases("distilbert-cases", tmp)
        .classifierWorst("distilbert-sst2", 48, "distilbert");
    assertTrue(worst <= TOLERANCE, "worst relative error " + worst);
  }
}
