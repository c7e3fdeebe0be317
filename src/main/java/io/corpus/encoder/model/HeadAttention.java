package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Bfloat16Rows;
import io.corpus.encoder.kernel.Bfloat16Tiles;
import io.corpus.encoder.kernel.Elementwise;
import io.corpus.encoder.kernel.RowMajorBlas;
import io.corpus.encoder.kernel.Vectors;
import java.util.Arrays;

/**
 * softmax(Q_h K_hᵀ / √D + terms + mask) · V_h for one head of one sequence, on strided views of
 * the fused q, k, v buffer ((N, (H + 2·Hkv)·D); query head h reads KV head h / (H / Hkv)),
 * written into the head's D columns of the (N, H·D) context. Two ways:
 *
 * <ul>
 *   <li>{@link #full}: the whole score matrix of one head, whose weights an {@link AttentionSink}
 *       can read, or of several heads side by side, sharing one softmax pass;
 *   <li>{@link #tiled}: query and key tiles of at most {@code tile} tokens with the online-softmax
 *       rescaling of FlashAttention (a running max and sum per query row; the partial output is
 *       rescaled when the max grows), so memory grows with T, not T². Tiles that the causal or
 *       window mask rules out entirely are skipped.
 * </ul>
 *
 * <p>Positions ascend within a sequence (padding removed), which the tile skipping relies on.
 * Not thread-safe: it owns its buffers; threads that share a sequence's work each have one.
 */
final class HeadAttention {
  private static final Elementwise MATH = Elementwise.INSTANCE;

  private final FusedHeads fused; // where each head lies in the fused q, k, v rows
  private final int width;        // H·D: row stride of the context
  private final int headWidth;    // D
  private final int qkvWidth;     // (H + 2·Hkv)·D: row stride of the fused q, k, v
  private final float scoreScale; // 1 / √D unless the model says otherwise
  private final int tile;
  private final ScoreTerms terms;           // added to every score
  private final boolean anyTerms;           // terms other than none
  private float[] keyScores = new float[0];   // (T_k, count·T_q) for full: Sᵀ, a row per key
  private float[] queryMax = new float[0];    // (count·T_q) scratch of the softmax
  private float[] querySum = new float[0];    // (count·T_q) sum of exp(score − max) per query
  private float[] inverseSum = new float[0];  // (count·T_q) 1 / querySum, 0 if fully masked
  private float[] weights = new float[0];     // (T_q, T) for the sink, a row per query
  private int lastKeys;                       // T_k of the last full call
  private final float[] tileScores;        // (tile, tile)
  private final float[] queryTile;         // (tile, D) the float32 tile's queries, dense
  private final float[] rowMax;            // (tile) running max per query row
  private final float[] rowSum;            // (tile) running sum of exp per query row
  private final OnlineStatistics online;   // the statistics of a tile's rows, when asked

  /** No statistics asked of a tile ({@link #tiled}). */
  static final double[] NO_STATISTICS = new double[0];

  /** H heads of D values, as many KV heads, scores scaled by 1/√D, no bias. */
  HeadAttention(int heads, int headWidth, int tile) {
    this(heads, heads, headWidth, 1.0 / Math.sqrt(headWidth), tile, ScoreTerms.NONE);
  }

  /**
   * H query heads and Hkv KV heads of D values, the rows of the fused buffer q (H·D), k (Hkv·D)
   * then v (Hkv·D); scores scaled by {@code scoreScale}, with {@code terms} added.
   */
  HeadAttention(int heads, int kvHeads, int headWidth, double scoreScale, int tile,
      ScoreTerms terms) {
    this.terms = terms;
    this.anyTerms = terms != ScoreTerms.NONE;
    this.fused = new FusedHeads(heads, kvHeads, headWidth);
    this.width = fused.queryWidth();
    this.qkvWidth = fused.width();
    this.headWidth = headWidth;
    this.scoreScale = (float) scoreScale;
    this.tile = tile;
    this.tileScores = new float[tile * tile];
    this.queryTile = new float[tile * headWidth];
    this.online = new OnlineStatistics(tile);
    this.rowMax = new float[tile];
    this.rowSum = new float[tile];
  }

  /** Longest sequence {@link #full} handles without being asked for maps; longer ones tile. */
  int tile() {
    return tile;
  }

  /** Where query head h starts in a row of the fused buffer. */
  int queryOffset(int h) {
    return fused.queryOffset(h);
  }

  /** Where the key head that query head h reads starts in a row of the fused buffer. */
  int keyOffset(int h) {
    return fused.keyOffset(fused.kvHead(h));
  }

  /** Where the value head that query head h reads starts in a row of the fused buffer. */
  int valueOffset(int h) {
    return fused.valueOffset(fused.kvHead(h));
  }

  /** Where each head lies in the fused q, k, v rows. */
  FusedHeads fused() {
    return fused;
  }

  /** The row width of the fused q, k, v buffer. */
  int qkvWidth() {
    return qkvWidth;
  }

  /**
   * Full attention of heads [h0, h0 + count) of one sequence starting at row {@code first}, each
   * head's (T, D) block of context written in place. Q_h, K_h and V_h are (T, D) views of qkv
   * with row stride (H + 2·Hkv)·D; the queries attend to the first T_k = {@code keys} keys.
   *
   * <p>The scores are computed transposed, a row per key: Sᵀ_h = K_h Q_hᵀ / √D, the heads' matrices
   * side by side in one (T_k, count·T_q) buffer. At T = 128, D = 64 OpenBLAS runs this product
   * and the value product from it, (Sᵀ_h)ᵀ V_h, about 40 % faster than in the query-row
   * orientation, and the softmax runs down columns, with no reductions across vector lanes: one
   * pass down count·T columns. For short sequences all heads at once gain: at T = 21 and 16 lanes
   * a pass over one head's T columns was one whole vector and a padded tail of 5. A column is
   * computed the same way whatever its neighbours, so the bits do not depend on count. The
   * division by each query's sum is applied to its D outputs instead of its T weights.
   */
  void full(TokenBatch batch, int first, int t, int keys, int h0, int count, AttentionMask rule,
      float[] qkv, float[] context) {
    int ld = qkvWidth;
    int cols = count * t;
    ensureCapacity(keys * cols, cols);
    lastKeys = keys;
    int row = first * ld;
    for (int h = 0; h < count; h++) {
      int q = row + queryOffset(h0 + h);
      int k = row + keyOffset(h0 + h);
      RowMajorBlas.gemm(false, true, keys, t, headWidth, scoreScale, qkv, k, ld, qkv, q, ld,
          0f, keyScores, h * t, cols);                                    // Sᵀ_h (T_k, T_q)
      if (anyTerms) {
        terms.add(batch, first, h0 + h, keyScores, h * t, 0, t, 0, keys, 1, cols);
      }
      if (rule.any()) {
        mask(batch, first, rule, keyScores, h * t, 0, t, 0, keys, 1, cols);
      }
    }
    MATH.expColumns(keyScores, keys, cols, queryMax, querySum);             // unnormalized
    for (int c = 0; c < cols; c++) {
      inverseSum[c] = querySum[c] > 0 ? 1f / querySum[c] : 0f;
    }
    for (int h = 0; h < count; h++) {
      int out = first * width + (h0 + h) * headWidth;
      int v = row + valueOffset(h0 + h);
      RowMajorBlas.gemm(true, false, t, headWidth, keys, 1f, keyScores, h * t, cols, qkv, v, ld,
          0f, context, out, width);                                       // (T_q, D)
      for (int i = 0; i < t; i++) {
        if (querySum[h * t + i] > 0) {
          MATH.scale(context, out + i * width, headWidth, inverseSum[h * t + i]);
        } else {
          meanOfValues(qkv, v, qkvWidth, t, context, out + i * width);
        }
      }
    }
  }

  /**
   * The output of a query that no key may see (a window that reaches no attended key): PyTorch
   * masks with its most negative float added to the scores, which makes every score of the row
   * equal, so softmax weighs all T keys alike and the output is the mean of their values.
   */
  private void meanOfValues(float[] values, int v, int stride, int t, float[] context,
      int outRow) {
    Arrays.fill(context, outRow, outRow + headWidth, 0f);
    for (int j = 0; j < t; j++) {
      Vectors.add(values, v + j * stride, context, outRow, headWidth);
    }
    MATH.scale(context, outRow, headWidth, 1f / t);
  }

  /** Grows the score buffer to {@code scores} values and the per-query ones to {@code queries}. */
  private void ensureCapacity(int scores, int queries) {
    if (keyScores.length < scores) {
      keyScores = new float[scores];
    }
    if (queryMax.length < queries) {
      queryMax = new float[queries];
      querySum = new float[queries];
      inverseSum = new float[queries];
    }
  }

  /**
   * The (T, T) weights of the last {@link #full} call, of one head, a row per query: built on
   * demand, for a sink, from the transposed scores and the inverse sums (0 on keys not attended
   * to).
   */
  float[] weights(int t) {
    if (weights.length < t * t) {
      weights = new float[t * t];
    }
    for (int i = 0; i < t; i++) {
      for (int j = 0; j < t; j++) {
        weights[i * t + j] = querySum[i] == 0 ? 1f / t
            : j < lastKeys ? keyScores[j * t + i] * inverseSum[i] : 0f;
      }
    }
    return weights;
  }

  /**
   * Tiled attention of head h for the query tile starting at query {@code q0} (its
   * {@link #tile()} queries, fewer at the end): same arguments and result as {@link #full} for
   * those rows, no maps; with {@code statistics} of {@link HeadStatistics#COUNT} values (else
   * empty, {@link #NO_STATISTICS}), the head's {@link HeadStatistics}
   * summed over the tile's query rows are added to {@code statistics[0, COUNT)}, gathered during
   * the online softmax. A query tile reads the whole of K and V and writes only its own rows, so
   * tiles may run on different threads, each with its own instance. K_h and V_h are read from
   * {@code kv} at {@code k} and {@code v}, rows {@code kvStride} apart: a {@link KeyValueHeads}
   * block (stride D) for float32 tiles, the fused buffer's rows for bfloat16 ones; the query
   * tile is copied to dense rows first. With {@code rounded} (the fused rows in bfloat16; null
   * for float32 tiles) both products run in bfloat16 with float32 sums ({@link Bfloat16Tiles}),
   * reading q, k and v at their fused offsets, the softmax between them in float32 as before.
   */
  void tiled(TokenBatch batch, int first, int t, int keys, int h, int q0, AttentionMask rule,
      float[] qkv, int q, float[] kv, int k, int v, int kvStride, float[] context, int out,
      double[] statistics, Bfloat16Rows rounded) {
    boolean reduced = rounded != null;
    Bfloat16Tiles bfloat16 = reduced ? Bfloat16Tiles.forThisThread() : null;
    if (reduced && kvStride != qkvWidth) {
      throw new IllegalArgumentException("bfloat16 tiles read k and v in the fused rows");
    }
    int ld = qkvWidth;
    boolean gathering = statistics.length > 0;
    OnlineStatistics stats = online;
    int bq = Math.min(tile, t - q0);
    int acc = out + q0 * width;                      // (bq, D) output rows, row stride H·D
    Arrays.fill(rowMax, 0, bq, Float.NEGATIVE_INFINITY);
    Arrays.fill(rowSum, 0, bq, 0f);
    if (gathering) {
      stats.startTile(bq);
    }
    for (int i = 0; i < bq; i++) {
      Arrays.fill(context, acc + i * width, acc + i * width + headWidth, 0f);
      if (!reduced) {
        System.arraycopy(qkv, q + (q0 + i) * ld, queryTile, i * headWidth, headWidth);
      }
    }
    for (int k0 = 0; k0 < keys; k0 += tile) {
      int bk = Math.min(tile, keys - k0);
      if (rule.forbidsAll(batch.position(first + q0), batch.position(first + q0 + bq - 1),
          batch.position(first + k0), batch.position(first + k0 + bk - 1))) {
        continue;
      }
      if (!reduced) {
        RowMajorBlas.gemm(false, true, bq, bk, headWidth, scoreScale, queryTile, 0, headWidth,
            kv, k + k0 * kvStride, kvStride, 0f, tileScores, 0, bk);     // (bq, bk)
      } else {
        bfloat16.scores(rounded, q + (long) q0 * ld, k + (long) k0 * ld, ld, bq, bk, headWidth,
            scoreScale, tileScores, 0);
      }
      if (anyTerms) {
        terms.add(batch, first, h, tileScores, 0, q0, bq, k0, bk, bk, 1);
      }
      if (rule.any()) {
        mask(batch, first, rule, tileScores, 0, q0, bq, k0, bk, bk, 1);
      }
      if (gathering) {
        stats.startKeyTile(batch, first, k0, bk);
      }
      for (int i = 0; i < bq; i++) {
        rescaleRow(i, bk, context, acc + i * width, gathering, batch, first, q0 + i, k0);
      }
      if (!reduced) {
        RowMajorBlas.gemm(false, false, bq, headWidth, bk, 1f, tileScores, 0, bk,
            kv, v + k0 * kvStride, kvStride, 1f, context, acc, width);    // (bq, D) +=
      } else {
        bfloat16.addValues(tileScores, 0, rounded, v + (long) k0 * ld, ld, bq, bk, headWidth,
            context, acc, width);
      }
    }
    if (gathering) {
      stats.endTile(q0, bq, rowMax, rowSum, batch, first, t, statistics);
    }
    for (int i = 0; i < bq; i++) {
      if (rowSum[i] > 0) {
        MATH.scale(context, acc + i * width, headWidth, 1f / rowSum[i]);
      } else {
        meanOfValues(kv, v, kvStride, t, context, acc + i * width);
      }
    }
  }

  /**
   * Online softmax of tile row i: scores become exp(s − max so far), the row's sum and max are
   * updated, and the output row accumulated so far is rescaled to the new max.
   */
  private void rescaleRow(int i, int bk, float[] context, int outRow, boolean gathering,
      TokenBatch batch, int first, int query, int k0) {
    int row = i * bk;
    float newMax = Math.max(rowMax[i], MATH.max(tileScores, row, bk));
    if (newMax == Float.NEGATIVE_INFINITY) {         // every key so far masked
      Arrays.fill(tileScores, row, row + bk, 0f);
      return;
    }
    double shrink = Math.exp(rowMax[i] - newMax);     // 0 on the first live tile
    float correction = (float) shrink;
    float exps;
    if (!gathering) {
      exps = MATH.expShifted(tileScores, row, bk, newMax);
    } else {
      online.beforeExp(i, tileScores, row, bk, batch, first, query, k0);
      exps = online.exp(i, tileScores, row, bk, rowMax[i], newMax, rowSum[i], shrink, batch,
          first, query);
    }
    rowSum[i] = rowSum[i] * correction + exps;
    rowMax[i] = newMax;
    if (correction != 1f) {
      MATH.scale(context, outRow, headWidth, correction);
    }
  }

  /**
   * Sets to −∞ the scores of (query, key) pairs the causal and window masks forbid: query
   * {@code q0 + i}, key {@code k0 + j} at {@code s[base + i · queryStride + j · keyStride]}.
   */
  private static void mask(TokenBatch batch, int first, AttentionMask rule, float[] s, int base,
      int q0, int bq, int k0, int bk, int queryStride, int keyStride) {
    for (int i = 0; i < bq; i++) {
      int queryPosition = batch.position(first + q0 + i);
      for (int j = 0; j < bk; j++) {
        if (!rule.allows(queryPosition, batch.position(first + k0 + j))) {
          s[base + i * queryStride + j * keyStride] = Float.NEGATIVE_INFINITY;
        }
      }
    }
  }
}
