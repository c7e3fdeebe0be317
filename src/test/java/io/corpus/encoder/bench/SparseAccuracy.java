package io.corpus.encoder.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * {@code SparseAccuracy REFERENCE OTHER [LABEL]}: how far OTHER's sparse vectors (SPLADE's) moved
 * from REFERENCE's, over the ids both hold: the minimum, 1st percentile and median cosine, the
 * mean Jaccard index of their sets of terms, and the largest difference of one term's weight.
 * Each side is a job's {@code embeddings/} folder (columns {@code sparse_indices},
 * {@code sparse_values}) or the ONNX Runtime peer's OUT.json ({@code [{id, sparse_indices,
 * sparse_values}]}, jobs/benchmarks/peers/OrtIds.java). Prints one line
 * (jobs/benchmarks/bench-enrich).
 */
public final class SparseAccuracy {
  private SparseAccuracy() {}

  public static void main(String[] args) throws IOException {
    Map<String, TreeMap<Integer, Float>> reference = read(args[0]);
    Map<String, TreeMap<Integer, Float>> other = read(args[1]);
    String label = args.length > 2 ? args[2] : args[1];
    List<String> ids = new ArrayList<>(reference.keySet());
    ids.retainAll(other.keySet());
    if (ids.size() != reference.size() || ids.size() != other.size()) {
      throw new IllegalStateException("the two sides hold different ids: " + reference.size()
          + " and " + other.size() + ", " + ids.size() + " in common");
    }
    int n = ids.size();
    double[] cosines = new double[n];
    double jaccard = 0;
    double largest = 0;
    for (int i = 0; i < n; i++) {
      TreeMap<Integer, Float> a = reference.get(ids.get(i));
      TreeMap<Integer, Float> b = other.get(ids.get(i));
      double dot = 0;
      int common = 0;
      for (Map.Entry<Integer, Float> term : a.entrySet()) {
        Float w = b.get(term.getKey());
        largest = Math.max(largest, Math.abs(term.getValue() - (w == null ? 0f : w)));
        if (w != null) {
          dot += (double) term.getValue() * w;
          common++;
        }
      }
      for (Map.Entry<Integer, Float> term : b.entrySet()) {
        if (!a.containsKey(term.getKey())) {
          largest = Math.max(largest, Math.abs(term.getValue()));
        }
      }
      double norms = Math.sqrt(squares(a) * squares(b));
      cosines[i] = norms == 0 ? (a.isEmpty() && b.isEmpty() ? 1 : 0) : dot / norms;
      int union = a.size() + b.size() - common;
      jaccard += union == 0 ? 1 : (double) common / union;
    }
    double[] sorted = cosines.clone();
    Arrays.sort(sorted);
    System.out.printf(Locale.ROOT, "accuracy %s: %d texts, cosine to the reference min %.6f, p1 "
        + "%.6f, median %.7f; terms in common (Jaccard) %.4f; largest weight difference %.2e%n",
        label, n, sorted[0], sorted[(int) Math.floor(0.01 * (n - 1))], sorted[(n - 1) / 2],
        jaccard / n, largest);
  }

  private static double squares(TreeMap<Integer, Float> v) {
    double sum = 0;
    for (float w : v.values()) {
      sum += (double) w * w;
    }
    return sum;
  }

  private static Map<String, TreeMap<Integer, Float>> read(String path) throws IOException {
    Map<String, TreeMap<Integer, Float>> vectors = new HashMap<>();
    if (path.endsWith(".json")) {
      for (JsonNode row : new ObjectMapper().readTree(new File(path))) {
        TreeMap<Integer, Float> v = new TreeMap<>();
        JsonNode indices = row.get("sparse_indices");
        JsonNode values = row.get("sparse_values");
        for (int i = 0; i < indices.size(); i++) {
          v.put(indices.get(i).asInt(), (float) values.get(i).asDouble());
        }
        vectors.put(row.get("id").asText(), v);
      }
      return vectors;
    }
    SparkSession spark = OneCoreSession.start("sparse-accuracy");
    for (Row r : spark.read().parquet(path).select("id", "sparse_indices", "sparse_values")
        .collectAsList()) {
      List<Integer> indices = r.getList(1);
      List<Float> values = r.getList(2);
      TreeMap<Integer, Float> v = new TreeMap<>();
      for (int i = 0; i < indices.size(); i++) {
        v.put(indices.get(i), values.get(i));
      }
      vectors.put(String.valueOf(r.<Object>get(0)), v);
    }
    return vectors;
  }
}
