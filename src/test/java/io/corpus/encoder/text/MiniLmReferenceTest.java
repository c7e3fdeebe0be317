package io.corpus.encoder.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.model.Encoder;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.TokenBatch;
import io.corpus.encoder.model.TokenEmbeddings;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.weights.FolderWeights;
import io.corpus.encoder.weights.ModelFolder;
import io.corpus.encoder.weights.WeightsLoader;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/**
 * all-MiniLM-L6-v2 on the 30 reference texts of ../shared/models (license paragraphs, accents,
 * CJK, one-letter and whitespace-only texts, one truncated): text to ids with the folder's
 * tokenizer, the embedding layer, the encoder, mean pooling and L2 normalization, against Hugging
 * Face's tokenizer, ONNX Runtime's hidden states and sentence-transformers' vectors.
 */
class MiniLmReferenceTest {
  private static final double RELATIVE = 1e-4;
  private static final double ABSOLUTE = 1e-3;
  private static final double COSINE = 1 - 1e-6;

  @Test
  void textToSentenceVectorsMatchTheReference() {
    Path folder = SharedModels.miniLm();
    ModelFolder model = ModelFolder.read(folder);
    FolderWeights weights = WeightsLoader.load(model);
    List<Row> expected = SparkTestSession.get().read()
        .parquet(folder.resolve("expected/expected.parquet").toString()).orderBy("id")
        .collectAsList();
    assertEquals(30, expected.size());

    TokenEmbeddings embeddings = new TokenEmbeddings(weights.embeddings(),
        model.architecture().norms().eps());
    TokenBatch batch = new TokenBatch(model.shape().width(), 4096);
    int truncated = 0;
    try (TextTokenizer tokenizer = TextTokenizer.open(model.tokenizer().orElseThrow(),
        model.maxTokens())) {
      for (Row row : expected) {
        TextTokenizer.Tokens tokens = tokenizer.encode(row.getAs("text"));
        List<Integer> ids = row.getList(row.fieldIndex("input_ids"));
        assertArrayEquals(ids.stream().mapToInt(Integer::intValue).toArray(), tokens.ids(),
            "ids of " + row.getAs("id"));
        assertEquals(-1, embeddings.firstIdOutside(tokens.ids()));
        assertEquals(-1, embeddings.firstTypeIdOutside(tokens.typeIds()));
        truncated += tokens.truncated() ? 1 : 0;
        embeddings.append(tokens.ids(), tokens.typeIds(), batch);
      }
    }
    assertEquals(1, truncated, "one reference text is longer than max_seq_length");
    new Encoder(model.settings(), weights.encoder()).forward(batch);

    int e = model.shape().width();
    double worstRelative = 0;
    double worstAbsolute = 0;
    double worstCosine = 1;
    for (int b = 0; b < expected.size(); b++) {
      Row row = expected.get(b);
      double[][] reference = SparkInputs.matrix(row.getAs("last_hidden_state"));
      assertEquals(reference.length, batch.length(b), "tokens of " + row.getAs("id"));
      double diff = 0;
      double norm = 0;
      for (int t = 0; t < reference.length; t++) {
        for (int i = 0; i < e; i++) {
          double d = batch.tokens()[(batch.firstRow(b) + t) * e + i] - reference[t][i];
          diff += d * d;
          norm += reference[t][i] * reference[t][i];
          worstAbsolute = Math.max(worstAbsolute, Math.abs(d));
        }
      }
      worstRelative = Math.max(worstRelative, Math.sqrt(diff / norm));

      float[] pooled = Pooling.MEAN.pool(batch.tokens(), batch.firstRow(b), batch.length(b), e);
      Pooling.normalize(pooled);
      double[] sentence = SparkInputs.vector(row.getAs("sentence_embedding"));
      double dot = 0;
      double length = 0;
      double referenceLength = 0;
      for (int i = 0; i < e; i++) {
        dot += pooled[i] * sentence[i];
        length += (double) pooled[i] * pooled[i];
        referenceLength += sentence[i] * sentence[i];
      }
      assertEquals(1.0, Math.sqrt(length), 1e-6, "norm of " + row.getAs("id"));
      worstCosine = Math.min(worstCosine, dot / Math.sqrt(length * referenceLength));
    }
    System.out.printf("all-MiniLM-L6-v2, 30 texts: hidden states worst relative %.2e, absolute "
        + "%.2e; sentence vectors worst cosine 1 - %.2e%n", worstRelative, worstAbsolute,
        1 - worstCosine);
    assertTrue(worstRelative <= RELATIVE, "relative error " + worstRelative);
    assertTrue(worstAbsolute <= ABSOLUTE, "absolute error " + worstAbsolute);
    assertTrue(worstCosine >= COSINE, "cosine " + worstCosine);
  }
}
