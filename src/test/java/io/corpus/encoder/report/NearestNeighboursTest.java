package io.corpus.encoder.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Neighbours and near duplicates against cosines computed one pair at a time, in double. */
class NearestNeighboursTest {
  @Test
  void everyRowsNeighboursAreItsLargestCosinesAcrossBlocks() {
    int n = NearestNeighbours.BLOCK + 190;   // two blocks, the second partial
    int e = 24;
    int k = 5;
    Random random = new Random(7);
    float[] v = new float[n * e];
    for (int i = 0; i < v.length; i++) {
      v[i] = (float) random.nextGaussian();
    }
    // row 600 a scaled near-copy of row 3 (a near duplicate across the blocks), row 9 all zero
    for (int c = 0; c < e; c++) {
      v[600 * e + c] = 2.5f * v[3 * e + c] + 0.01f * (float) random.nextGaussian();
      v[9 * e + c] = 0f;
    }
    NearestNeighbours nn = NearestNeighbours.of(v, n, e, k, 0.99, 1000);
    for (int i = 0; i < n; i++) {
      int row = i;
      double[] cos = IntStream.range(0, n).mapToDouble(j -> cosine(v, e, row, j)).toArray();
      Integer[] order = IntStream.range(0, n).filter(j -> j != row).boxed()
          .sorted(Comparator.comparingDouble((Integer j) -> -cos[j])).toArray(Integer[]::new);
      for (int r = 0; r < k; r++) {
        int found = nn.neighbours()[i * k + r];
        assertTrue(found != i, "a row is not its own neighbour");
        assertEquals(cos[order[r]], nn.scores()[i * k + r], 1e-5, "row " + i + " rank " + r);
        assertEquals(cos[found], nn.scores()[i * k + r], 1e-5, "the score is the found row's");
      }
    }
    assertEquals(600, nn.neighbours()[3 * k]);
    assertEquals(1, nn.duplicateCount());
    assertEquals(new NearestNeighbours.Pair(3, 600, nn.duplicates().get(0).cosine()),
        nn.duplicates().get(0));
    assertEquals(0f, nn.scores()[9 * k], "a zero vector has cosine 0 to every row");
  }

  @Test
  void pairsAreCountedAllButListedUpToTheLimitLargestFirst() {
    int n = 40;
    float[] v = new float[n * 2];
    for (int i = 0; i < n; i++) {
      v[2 * i] = 1f;
      v[2 * i + 1] = 0.001f * i;   // all nearly parallel
    }
    NearestNeighbours nn = NearestNeighbours.of(v, n, 2, 3, 0.9, 10);
    assertEquals(n * (n - 1) / 2, nn.duplicateCount());
    assertEquals(10, nn.duplicates().size());
    float[] listed = new float[10];
    for (int p = 0; p < 10; p++) {
      listed[p] = nn.duplicates().get(p).cosine();
    }
    float[] sorted = listed.clone();
    Arrays.sort(sorted);
    for (int p = 0; p < 10; p++) {
      assertEquals(sorted[9 - p], listed[p]);
    }
    NearestNeighbours one = NearestNeighbours.of(new float[] {1f, 0f}, 1, 2, 3, 0.9, 10);
    assertEquals(-1, one.neighbours()[0], "a single row has no neighbour");
  }

  private static double cosine(float[] v, int e, int a, int b) {
    double dot = 0;
    double na = 0;
    double nb = 0;
    for (int c = 0; c < e; c++) {
      dot += (double) v[a * e + c] * v[b * e + c];
      na += (double) v[a * e + c] * v[a * e + c];
      nb += (double) v[b * e + c] * v[b * e + c];
    }
    return na == 0 || nb == 0 ? 0 : dot / Math.sqrt(na * nb);
  }
}
