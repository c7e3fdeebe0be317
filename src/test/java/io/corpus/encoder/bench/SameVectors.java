package io.corpus.encoder.bench;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * {@code SameVectors A B}: whether two {@code embeddings/} tables hold the same ids, each once,
 * the same other columns and pooled vectors within 1 − 1e-6 cosine; prints the counts and the
 * worst 1 − cosine. Exit 1 when they differ (jobs/benchmarks/bench-update).
 */
public final class SameVectors {
  private SameVectors() {}

  public static void main(String[] args) {
    SparkSession spark = OneCoreSession.start("same-vectors");
    Map<String, Row> a = byId(spark, args[0]);
    Map<String, Row> b = byId(spark, args[1]);
    spark.stop();
    int differentColumns = 0;
    double worst = 0;
    for (Map.Entry<String, Row> e : a.entrySet()) {
      Row other = b.get(e.getKey());
      if (other == null) {
        continue;
      }
      Row row = e.getValue();
      for (String column : row.schema().fieldNames()) {
        if (!column.equals("pooled") && !String.valueOf(row.<Object>getAs(column))
            .equals(String.valueOf(other.<Object>getAs(column)))) {
          differentColumns++;
        }
      }
      worst = Math.max(worst, 1 - cosine(row.getList(row.fieldIndex("pooled")),
          other.getList(other.fieldIndex("pooled"))));
    }
    boolean same = a.keySet().equals(b.keySet()) && differentColumns == 0 && worst <= 1e-6;
    System.out.printf("%s: %,d and %,d ids (%s), %d values of other columns differ, worst 1 - "
        + "cosine of pooled vectors %.1e%n", same ? "same" : "DIFFERENT", a.size(), b.size(),
        a.keySet().equals(b.keySet()) ? "the same ids" : "not the same ids", differentColumns,
        worst);
    System.exit(same ? 0 : 1);
  }

  private static Map<String, Row> byId(SparkSession spark, String path) {
    Map<String, Row> rows = new HashMap<>();
    for (Row r : spark.read().parquet(path).collectAsList()) {
      if (rows.put(String.valueOf(r.<Object>getAs("id")), r) != null) {
        throw new IllegalStateException(path + ": id " + r.getAs("id") + " on two rows");
      }
    }
    return rows;
  }

  private static double cosine(List<Float> x, List<Float> y) {
    double dot = 0;
    double xx = 0;
    double yy = 0;
    for (int i = 0; i < x.size(); i++) {
      dot += (double) x.get(i) * y.get(i);
      xx += (double) x.get(i) * x.get(i);
      yy += (double) y.get(i) * y.get(i);
    }
    return dot / Math.sqrt(xx * yy);
  }
}
