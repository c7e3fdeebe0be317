package io.corpus.encoder.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** BERT's embedding layer against the formula in double precision. */
class TokenEmbeddingsTest {
  private static final int E = 24;
  private static final int V = 50;
  private static final int P = 16;
  private static final int S = 2;
  private static final double EPS = 1e-12;

  private final Random random = new Random(11);

  private float[] table(int rows) {
    float[] t = new float[rows * E];
    for (int i = 0; i < t.length; i++) {
      t[i] = (float) random.nextGaussian();
    }
    return t;
  }

  @Test
  void sumOfTablesThenLayerNormPerToken() {
    EmbeddingWeights w = new EmbeddingWeights(table(V), table(P), table(S), table(1), table(1));
    TokenEmbeddings layer = new TokenEmbeddings(w, EPS);
    int[][] ids = {{1, 7, 49, 0, 3}, {10, 11}};
    int[][] types = {null, {0, 1}};
    TokenBatch batch = new TokenBatch(E, 4);   // grows while appending
    for (int b = 0; b < ids.length; b++) {   // a single text's types: the overload's zeros
      assertEquals(b, types[b] == null ? layer.append(ids[b], batch)
          : layer.append(ids[b], types[b], batch));
    }
    assertEquals(7, batch.tokenCount());
    for (int b = 0; b < ids.length; b++) {
      for (int t = 0; t < ids[b].length; t++) {
        int type = types[b] == null ? 0 : types[b][t];
        double[] x = new double[E];
        double mean = 0;
        for (int i = 0; i < E; i++) {
          x[i] = (double) w.word().floats()[ids[b][t] * E + i] + w.position()[t * E + i]
              + w.tokenType()[type * E + i];
          mean += x[i] / E;
        }
        double var = 0;
        for (int i = 0; i < E; i++) {
          var += (x[i] - mean) * (x[i] - mean) / E;
        }
        int row = batch.firstRow(b) + t;
        assertEquals(t, batch.position(row));
        for (int i = 0; i < E; i++) {
          Norm.Affine norm = (Norm.Affine) w.norm();
          double expected = (x[i] - mean) / Math.sqrt(var + EPS) * norm.scale()[i]
              + norm.shift()[i];
          assertEquals(expected, batch.tokens()[row * E + i], 2e-5, "sequence " + b + " token "
              + t + " feature " + i);
        }
      }
    }
  }

  @Test
  void rangeChecksNameTheFirstTokenOutsideTheTables() {
    EmbeddingWeights w = new EmbeddingWeights(table(V), table(P), table(S), table(1), table(1));
    TokenEmbeddings layer = new TokenEmbeddings(w, EPS);
    assertEquals(-1, layer.firstIdOutside(new int[] {0, V - 1}));
    assertEquals(1, layer.firstIdOutside(new int[] {0, V}));
    assertEquals(0, layer.firstIdOutside(new int[] {-1}));
    assertEquals(-1, layer.firstTypeIdOutside(new int[] {0, S - 1}));
    assertEquals(1, layer.firstTypeIdOutside(new int[] {0, S}));
  }
}
