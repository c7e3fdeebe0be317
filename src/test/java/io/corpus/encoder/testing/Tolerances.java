package io.corpus.encoder.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.kernel.OneDnn;
import java.util.List;
import java.util.concurrent.atomic.DoubleAccumulator;

/**
 * The fixtures' tolerances: for embeddings and pooled vectors ‖out − ref‖ / ‖ref‖ ≤ 1e-4 and
 * max |out − ref| ≤ 1e-3; for attention weights max |w − ref| ≤ 1e-5. Also keeps the largest
 * errors seen, for the record.
 */
public final class Tolerances {
  public static final double RELATIVE = 1e-4;
  public static final double ABSOLUTE = 1e-3;
  public static final double ATTENTION = 1e-5;

  public static final DoubleAccumulator WORST_RELATIVE = new DoubleAccumulator(Math::max, 0);
  public static final DoubleAccumulator WORST_ABSOLUTE = new DoubleAccumulator(Math::max, 0);
  public static final DoubleAccumulator WORST_ATTENTION = new DoubleAccumulator(Math::max, 0);

  private Tolerances() {}

  /**
   * all-MiniLM-L6-v2's sentence vectors in int8 against ONNX Runtime's float32 ones: 1 − cosine
   * at most 1e-2 with 8-bit activations (VNNI or AMX), 3e-2 with the 7-bit ones of processors
   * without (measured with oneDNN capped at AVX2: 1.9e-2).
   */
  public static double int8MiniLm() {
    return OneDnn.isa().exactInt8() ? 1e-2 : 3e-2;
  }

  /** Embeddings or pooled vectors: rows of {@code actual} against {@code expected}. */
  public static void assertVectorsClose(double[][] expected, double[][] actual, String what) {
    assertEquals(expected.length, actual.length, what + ": row count");
    double diff2 = 0;
    double ref2 = 0;
    double maxAbs = 0;
    for (int i = 0; i < expected.length; i++) {
      assertEquals(expected[i].length, actual[i].length, what + ": width of row " + i);
      for (int j = 0; j < expected[i].length; j++) {
        double d = actual[i][j] - expected[i][j];
        diff2 += d * d;
        ref2 += expected[i][j] * expected[i][j];
        maxAbs = Math.max(maxAbs, Math.abs(d));
      }
    }
    double relative = ref2 == 0 ? Math.sqrt(diff2) : Math.sqrt(diff2 / ref2);
    WORST_RELATIVE.accumulate(relative);
    WORST_ABSOLUTE.accumulate(maxAbs);
    assertTrue(relative <= RELATIVE, what + ": relative error " + relative + " > " + RELATIVE);
    assertTrue(maxAbs <= ABSOLUTE, what + ": max abs error " + maxAbs + " > " + ABSOLUTE);
  }

  /** One attention map (T, T). */
  public static void assertMapClose(double[][] expected, double[][] actual, String what) {
    assertEquals(expected.length, actual.length, what + ": rows");
    double maxAbs = 0;
    for (int i = 0; i < expected.length; i++) {
      assertEquals(expected[i].length, actual[i].length, what + ": columns of row " + i);
      for (int j = 0; j < expected[i].length; j++) {
        maxAbs = Math.max(maxAbs, Math.abs(actual[i][j] - expected[i][j]));
      }
    }
    WORST_ATTENTION.accumulate(maxAbs);
    assertTrue(maxAbs <= ATTENTION, what + ": max abs error " + maxAbs + " > " + ATTENTION);
  }

  public static double[][] toDouble(float[][] x) {
    double[][] out = new double[x.length][];
    for (int i = 0; i < x.length; i++) {
      out[i] = new double[x[i].length];
      for (int j = 0; j < x[i].length; j++) {
        out[i][j] = x[i][j];
      }
    }
    return out;
  }

  public static String worst() {
    return String.format("largest errors so far: relative %.3g, absolute %.3g, attention %.3g",
        WORST_RELATIVE.get(), WORST_ABSOLUTE.get(), WORST_ATTENTION.get());
  }

  /** The cosine of two vectors, in double. */
  public static double cosine(double[] a, double[] b) {
    double dot = 0;
    double na = 0;
    double nb = 0;
    for (int i = 0; i < a.length; i++) {
      dot += a[i] * b[i];
      na += a[i] * a[i];
      nb += b[i] * b[i];
    }
    return dot / Math.sqrt(na * nb);
  }

  /** ‖got − want‖ / ‖want‖ of a reference list of numbers (JSON) and a Spark array value. */
  public static double relativeError(JsonNode want, List<?> got) {
    assertEquals(want.size(), got.size());
    double diff = 0;
    double norm = 0;
    for (int i = 0; i < want.size(); i++) {
      double w = want.get(i).asDouble();
      diff += Math.pow(w - ((Number) got.get(i)).doubleValue(), 2);
      norm += w * w;
    }
    return Math.sqrt(diff) / Math.max(Math.sqrt(norm), 1e-12);
  }
}
