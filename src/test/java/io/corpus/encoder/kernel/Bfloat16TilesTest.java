package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.corpus.encoder.testing.Bfloat16Kernels;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A tile's two bfloat16 products against the same arithmetic done here in double on the rounded
 * values: Q and K, V read as strided rows of a fused buffer (query head 1 of 3 heads, tiles that
 * start inside it and end short), the scores scaled as they are stored, the values' sums added
 * to rows of a wider context. Runs on whatever processor this is.
 */
class Bfloat16TilesTest {
  private static final int D = 8;
  private static final int LD = 5 * D;   // q (3 heads), k and v (one KV head each)

  @Test
  void scoresAndValuesAreTheRoundedValuesProducts() {
    Bfloat16Kernels.assumeAvailable();
    Random rnd = new Random(9);
    int t = 29;
    float[] qkv = new float[t * LD + 7];
    for (int i = 0; i < qkv.length; i++) {
      qkv[i] = (float) rnd.nextGaussian();
    }
    Bfloat16Rows rows = new Bfloat16Rows();
    rows.reserve(qkv.length);
    rows.round(qkv, 0, qkv.length);
    Bfloat16Tiles tiles = Bfloat16Tiles.forThisThread();
    int q0 = 5;
    int k0 = 11;
    for (int[] shape : new int[][] {{7, 13}, {16, 16}, {7, 13}, {1, 3}}) {   // a shape reused
      int bq = shape[0];
      int bk = shape[1];
      float[] s = new float[2 + bq * bk];
      tiles.scores(rows, D + (long) q0 * LD, 3 * D + (long) k0 * LD, LD, bq, bk, D, 0.25f, s, 2);
      for (int i = 0; i < bq; i++) {
        for (int j = 0; j < bk; j++) {
          double sum = 0;
          for (int d = 0; d < D; d++) {
            sum += (double) bf16(qkv[(q0 + i) * LD + D + d]) * bf16(qkv[(k0 + j) * LD + 3 * D + d]);
          }
          assertEquals(0.25 * sum, s[2 + i * bk + j], 1e-5 * (1 + Math.abs(sum)),
              "score " + i + ", " + j + " of " + bq + " x " + bk);
        }
      }
      int width = 3 * D;   // the context's rows: 3 heads; this tile writes head 2's columns
      float[] context = new float[(q0 + bq) * width];
      for (int i = 0; i < context.length; i++) {
        context[i] = (float) rnd.nextGaussian();
      }
      float[] before = context.clone();
      tiles.addValues(s, 2, rows, 4 * D + (long) k0 * LD, LD, bq, bk, D, context,
          q0 * width + 2 * D, width);
      for (int i = 0; i < bq; i++) {
        for (int d = 0; d < width; d++) {
          int at = (q0 + i) * width + d;
          if (d < 2 * D) {
            assertEquals(before[at], context[at], "other heads' columns are left alone");
            continue;
          }
          double sum = before[at];
          for (int j = 0; j < bk; j++) {
            sum += (double) bf16(s[2 + i * bk + j]) * bf16(qkv[(k0 + j) * LD + 4 * D + d - 2 * D]);
          }
          assertEquals(sum, context[at], 1e-5 * (1 + Math.abs(sum)), "output " + i + ", " + d);
        }
      }
    }
    System.out.println("bfloat16 tiles on oneDNN " + OneDnn.describe());
  }

  private static float bf16(float x) {
    return Bfloat16Matrix.toFloat(Bfloat16Matrix.toBfloat16(x));
  }
}
