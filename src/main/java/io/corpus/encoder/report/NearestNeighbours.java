package io.corpus.encoder.report;

import io.corpus.encoder.kernel.RowMajorBlas;
import io.corpus.encoder.model.TopK;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * Every row's k nearest other rows by cosine, and the pairs whose cosine is at least a threshold
 * (near duplicates), for the corpus map's N rows of E-dimensional vectors.
 *
 * <p>The N × N cosines are never held at once: blocks of {@link #BLOCK} rows are multiplied by
 * all rows (one sgemm, BLOCK × N floats: 41 MB at N = 20,000), each block's rows reduced to their
 * top k and its pairs above the threshold, and the blocks run in parallel. N = 20,000, E = 384 is
 * 307 GFLOP: seconds on two cores.
 *
 * @param k neighbours per row (fewer when N − 1 &lt; k)
 * @param neighbours (N, k) row indices, nearest first; −1 past the last
 * @param scores (N, k) their cosines
 * @param duplicates the pairs (i &lt; j) whose cosine is at least the threshold, largest first, at
 *     most {@code maxPairs} of them
 * @param duplicateCount how many such pairs there are in all
 */
public record NearestNeighbours(int k, int[] neighbours, float[] scores,
    List<Pair> duplicates, long duplicateCount) {

  /** Two rows and their cosine; {@code first < second}. */
  public record Pair(int first, int second, float cosine) {}

  static final int BLOCK = 512;

  /**
   * @param vectors (N, E) row-major; rows need not be normalized (a zero row has cosine 0)
   */
  public static NearestNeighbours of(float[] vectors, int n, int e, int k, double threshold,
      int maxPairs) {
    float[] unit = normalized(vectors, n, e);
    int[] neighbours = new int[n * k];
    float[] scores = new float[n * k];
    Arrays.fill(neighbours, -1);
    int blocks = (n + BLOCK - 1) / BLOCK;
    AtomicLong count = new AtomicLong();
    List<List<Pair>> found = IntStream.range(0, blocks).parallel().mapToObj(b -> {
      int from = b * BLOCK;
      int rows = Math.min(BLOCK, n - from);
      float[] cosines = new float[rows * n];
      RowMajorBlas.gemm(false, true, rows, n, e, 1f, unit, from * e, e, unit, 0, e, 0f,
          cosines, 0, n);
      List<Pair> pairs = new ArrayList<>();
      int[] keys = new int[k];
      float[] best = new float[k];
      for (int r = 0; r < rows; r++) {
        int i = from + r;
        int base = r * n;
        for (int j = i + 1; j < n; j++) {
          if (cosines[base + j] >= threshold) {
            pairs.add(new Pair(i, j, cosines[base + j]));
          }
        }
        cosines[base + i] = Float.NEGATIVE_INFINITY;   // not its own neighbour
        int want = Math.min(k, n - 1);
        int kept = want == 0 ? 0 : TopK.of(cosines, base, n, want, keys, best);
        System.arraycopy(keys, 0, neighbours, i * k, kept);
        System.arraycopy(best, 0, scores, i * k, kept);
      }
      count.addAndGet(pairs.size());
      return largest(pairs, maxPairs);   // a low threshold must not fill the heap
    }).toList();
    List<Pair> all = new ArrayList<>();
    found.forEach(all::addAll);
    return new NearestNeighbours(k, neighbours, scores, largest(all, maxPairs), count.get());
  }

  private static List<Pair> largest(List<Pair> pairs, int most) {
    List<Pair> sorted = new ArrayList<>(pairs);
    sorted.sort((a, b) -> a.cosine() != b.cosine() ? Float.compare(b.cosine(), a.cosine())
        : a.first() != b.first() ? Integer.compare(a.first(), b.first())
        : Integer.compare(a.second(), b.second()));
    return List.copyOf(sorted.subList(0, Math.min(most, sorted.size())));
  }

  private static float[] normalized(float[] vectors, int n, int e) {
    float[] unit = new float[n * e];
    for (int i = 0; i < n; i++) {
      double sum = 0;
      for (int c = 0; c < e; c++) {
        sum += (double) vectors[i * e + c] * vectors[i * e + c];
      }
      float scale = sum > 0 ? (float) (1 / Math.sqrt(sum)) : 0f;
      for (int c = 0; c < e; c++) {
        unit[i * e + c] = vectors[i * e + c] * scale;
      }
    }
    return unit;
  }
}
