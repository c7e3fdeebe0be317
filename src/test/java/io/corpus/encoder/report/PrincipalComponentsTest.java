package io.corpus.encoder.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.SparkTestSession;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.ml.feature.PCA;
import org.apache.spark.ml.linalg.Matrix;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** The map's projection against Spark ML's PCA fitted on the same rows. */
class PrincipalComponentsTest {
  @Test
  void componentsAreSparkMlsUpToSignAndPointsAreTheCentredRowsOnThem() {
    int n = 300;
    int e = 40;
    Random random = new Random(3);
    float[] rows = new float[n * e];
    List<Row> spark = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double[] v = new double[e];
      for (int j = 0; j < e; j++) {
        // spread falling with j, so the leading components are well separated; an offset
        rows[i * e + j] = (float) (random.nextGaussian() * 4.0 / (1 + j) + 0.5);
        v[j] = rows[i * e + j];
      }
      spark.add(RowFactory.create(Vectors.dense(v)));
    }
    StructType schema = new StructType().add("v", SQLDataTypes.VectorType());
    Matrix pc = new PCA().setK(2).setInputCol("v")
        .fit(SparkTestSession.get().createDataFrame(spark, schema)).pc();

    float[] xy = PrincipalComponents.project(rows, n, e);
    double[] mean = new double[e];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < e; j++) {
        mean[j] += rows[i * e + j] / (double) n;
      }
    }
    for (int c = 0; c < 2; c++) {
      // the sign of a component is arbitrary: take Spark's sign from the first point
      double first = 0;
      for (int j = 0; j < e; j++) {
        first += (rows[j] - mean[j]) * pc.apply(j, c);
      }
      double sign = Math.signum(first) == Math.signum(xy[c]) ? 1 : -1;
      for (int i = 0; i < n; i++) {
        double expected = 0;
        for (int j = 0; j < e; j++) {
          expected += (rows[i * e + j] - mean[j]) * pc.apply(j, c);
        }
        assertEquals(sign * expected, xy[2 * i + c], 1e-4 * (1 + Math.abs(expected)),
            "point " + i + " component " + c);
      }
    }
    assertTrue(variance(xy, 0, n) > variance(xy, 1, n), "the first component spreads most");
    assertEquals(0f, PrincipalComponents.project(new float[] {1f, 2f}, 1, 2)[0],
        "a single point sits at the origin");
  }

  private static double variance(float[] xy, int c, int n) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += (double) xy[2 * i + c] * xy[2 * i + c];
    }
    return sum / n;
  }
}
