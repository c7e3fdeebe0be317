package io.corpus.encoder.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.kernel.RowMajorBlas;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * {@code PrecisionAccuracy REFERENCE OTHER [LABEL]}: how far OTHER's sentence vectors moved from
 * REFERENCE's, over the ids both hold: the minimum, 1st percentile and median cosine, and the mean
 * overlap of each text's 10 nearest neighbours (by cosine, itself left out) among all of them.
 * Each side is a job's {@code embeddings/} folder (column {@code pooled}) or the ONNX Runtime
 * peer's OUT.json ({@code [{id, sentence_embedding}]}). Prints one line (jobs/benchmarks/bench-precision).
 */
public final class PrecisionAccuracy {
  static final int NEIGHBOURS = 10;

  private PrecisionAccuracy() {}

  public static void main(String[] args) throws IOException {
    Map<String, float[]> reference = read(args[0]);
    Map<String, float[]> other = read(args[1]);
    String label = args.length > 2 ? args[2] : args[1];
    List<String> ids = new ArrayList<>(reference.keySet());
    ids.retainAll(other.keySet());
    ids.sort(null);
    if (ids.size() != reference.size() || ids.size() != other.size()) {
      throw new IllegalStateException("the two sides hold different ids: " + reference.size()
          + " and " + other.size() + ", " + ids.size() + " in common");
    }
    int n = ids.size();
    int e = reference.get(ids.get(0)).length;
    float[] a = unitRows(ids, reference, e);
    float[] b = unitRows(ids, other, e);
    double[] cosines = new double[n];
    for (int i = 0; i < n; i++) {
      double dot = 0;
      for (int j = 0; j < e; j++) {
        dot += (double) a[i * e + j] * b[i * e + j];
      }
      cosines[i] = dot;
    }
    double[] sorted = cosines.clone();
    Arrays.sort(sorted);
    int k = Math.min(NEIGHBOURS, n - 1);   // a text's neighbours are the others
    String overlap = k == 0 ? "n/a (one text)"
        : String.format(Locale.ROOT, "%.4f", neighbourOverlap(a, b, n, e) / k * NEIGHBOURS);
    System.out.printf(Locale.ROOT, "accuracy %s: %d texts, cosine to the reference min %.6f, "
        + "p1 %.6f, median %.7f; %d-nearest-neighbour overlap %s%n", label, n, sorted[0],
        sorted[(int) Math.floor(0.01 * (n - 1))], sorted[(n - 1) / 2], k, overlap);
  }

  /**
   * Mean over texts of |N_a(i) ∩ N_b(i)| / 10, N the 10 nearest others by cosine (as many as
   * there are when fewer: the slots left empty are not counted as shared).
   */
  private static double neighbourOverlap(float[] a, float[] b, int n, int e) {
    int block = 512;
    float[] sa = new float[block * n];
    float[] sb = new float[block * n];
    double total = 0;
    for (int from = 0; from < n; from += block) {
      int rows = Math.min(block, n - from);
      RowMajorBlas.gemm(false, true, rows, n, e, 1f, a, from * e, e, a, 0, e, 0f, sa, 0, n);
      RowMajorBlas.gemm(false, true, rows, n, e, 1f, b, from * e, e, b, 0, e, 0f, sb, 0, n);
      for (int r = 0; r < rows; r++) {
        int[] na = nearest(sa, r * n, n, from + r);
        int[] nb = nearest(sb, r * n, n, from + r);
        int common = 0;
        for (int x : na) {
          for (int y : nb) {
            common += x >= 0 && x == y ? 1 : 0;
          }
        }
        total += (double) common / NEIGHBOURS;
      }
    }
    return total / n;
  }

  private static int[] nearest(float[] scores, int offset, int n, int self) {
    int[] best = new int[NEIGHBOURS];
    float[] bestScore = new float[NEIGHBOURS];
    Arrays.fill(bestScore, Float.NEGATIVE_INFINITY);
    Arrays.fill(best, -1);
    for (int j = 0; j < n; j++) {
      float s = scores[offset + j];
      if (j == self || s <= bestScore[NEIGHBOURS - 1]) {
        continue;
      }
      int at = NEIGHBOURS - 1;
      while (at > 0 && bestScore[at - 1] < s) {
        bestScore[at] = bestScore[at - 1];
        best[at] = best[at - 1];
        at--;
      }
      bestScore[at] = s;
      best[at] = j;
    }
    return best;
  }

  private static float[] unitRows(List<String> ids, Map<String, float[]> vectors, int e) {
    float[] rows = new float[ids.size() * e];
    for (int i = 0; i < ids.size(); i++) {
      float[] v = vectors.get(ids.get(i));
      double norm = 0;
      for (float x : v) {
        norm += (double) x * x;
      }
      for (int j = 0; j < e; j++) {
        rows[i * e + j] = (float) (v[j] / Math.sqrt(norm));
      }
    }
    return rows;
  }

  private static Map<String, float[]> read(String path) throws IOException {
    Map<String, float[]> vectors = new HashMap<>();
    if (path.endsWith(".json")) {
      for (JsonNode row : new ObjectMapper().readTree(new File(path))) {
        JsonNode v = row.get("sentence_embedding");
        float[] f = new float[v.size()];
        for (int i = 0; i < f.length; i++) {
          f[i] = (float) v.get(i).asDouble();
        }
        vectors.put(row.get("id").asText(), f);
      }
      return vectors;
    }
    SparkSession spark = OneCoreSession.start("precision-accuracy");
    for (Row r : spark.read().parquet(path).select("id", "pooled").collectAsList()) {
      List<Float> v = r.getList(1);
      float[] f = new float[v.size()];
      for (int i = 0; i < f.length; i++) {
        f[i] = v.get(i);
      }
      vectors.put(String.valueOf(r.<Object>get(0)), f);
    }
    return vectors;
  }
}
