package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Elementwise;
import java.util.Arrays;

/**
 * {@link HeadStatistics}' quantities of a head whose attention is tiled, gathered while its
 * online softmax runs, so no (T, T) map is made. Per query row, beside the running max m and
 * sum l of exp(s − m) that the softmax keeps:
 * <ul>
 *   <li>B = Σⱼ exp(sⱼ − m)(m − sⱼ), rescaled as l is when m grows (B' = c(B + (m' − m) l) with
 *       c = exp(m − m')): the entropy is B / l + ln l, every term non-negative, so nothing
 *       cancels. The kernel keeps Σⱼ exp(sⱼ − m)(m − sⱼ) over the keys seen, rescaled by c
 *       ({@link Elementwise#expShiftedMoments}), in float lanes as l itself is kept in float;
 *       the part c(m' − m) l is kept here, in double;
 *   <li>Σⱼ exp(sⱼ − m)|pᵢ − pⱼ|, rescaled by c (the kernel's too): the distance once divided
 *       by l;
 *   <li>the raw scores of the first key, of the query's own, previous and next: their weights
 *       exp(s − m) / l once m and l are final; the largest weight is 1 / l.
 * </ul>
 * A row every key of which is masked has the uniform weights the full path gives it.
 *
 * <p>Not thread-safe: it owns its per-row buffers, one query tile's worth.
 */
final class OnlineStatistics {
  private static final Elementwise MATH = Elementwise.INSTANCE;

  private final double[] entropyShifts;  // (tile) B less the kernel's terms
  private final float[] moments;         // the rows' entropy and distance terms, the kernel's
  private final double[] rowMoments = new double[2];
  private final float[] firstScore;      // (tile) raw scores, −∞ where not seen or masked
  private final float[] selfScore;
  private final float[] previousScore;
  private final float[] nextScore;
  private final float[] keyPositions;    // (tile) the positions of the key tile's tokens

  OnlineStatistics(int tile) {
    entropyShifts = new double[tile];
    moments = new float[MATH.momentFloats(tile)];
    firstScore = new float[tile];
    selfScore = new float[tile];
    previousScore = new float[tile];
    nextScore = new float[tile];
    keyPositions = new float[tile];
  }

  /** Starts a query tile of {@code rows} rows. */
  void startTile(int rows) {
    Arrays.fill(entropyShifts, 0, rows, 0);
    for (float[] scores : new float[][] {firstScore, selfScore, previousScore, nextScore}) {
      Arrays.fill(scores, 0, rows, Float.NEGATIVE_INFINITY);
    }
  }

  /** Starts a key tile: keys {@code k0} to {@code k0 + bk} of the sequence from row first. */
  void startKeyTile(TokenBatch batch, int first, int k0, int bk) {
    for (int j = 0; j < bk; j++) {
      keyPositions[j] = batch.position(first + k0 + j);
    }
  }

  /**
   * Keeps the scores tile row i's statistics weigh by name (query {@code q} of the sequence
   * from row {@code first}, keys {@code k0} to {@code k0 + bk} at {@code s[row]}): the first
   * key's, its own, the previous and the next token's, before they become exponentials.
   */
  void beforeExp(int i, float[] s, int row, int bk, TokenBatch batch, int first, int q,
      int k0) {
    int position = batch.position(first + q);
    if (k0 == 0 && batch.position(first) == 0) {
      firstScore[i] = s[row];
    }
    if (q >= k0 && q < k0 + bk) {
      selfScore[i] = s[row + q - k0];
    }
    int previous = q - 1;
    if (previous >= k0 && previous < k0 + bk
        && batch.position(first + previous) == position - 1) {
      previousScore[i] = s[row + previous - k0];
    }
    int next = q + 1;
    if (next >= k0 && next < k0 + bk && batch.position(first + next) == position + 1) {
      nextScore[i] = s[row + next - k0];
    }
  }

  /**
   * Tile row i's scores at {@code s[row]} become exp(s − newMax) (the softmax's step, as
   * {@link Elementwise#expShifted}, whose sum it returns), and their entropy and distance terms
   * are added to the row's, the row's max having gone from {@code oldMax} (−∞ before its first
   * live tile) to {@code newMax} and its sum having been {@code oldSum}; {@code shrink} is
   * exp(oldMax − newMax), the factor the softmax rescales the row by.
   */
  float exp(int i, float[] s, int row, int bk, float oldMax, float newMax, float oldSum,
      double shrink, TokenBatch batch, int first, int q) {
    boolean firstLive = oldMax == Float.NEGATIVE_INFINITY;
    float sum = MATH.expShiftedMoments(s, row, bk, newMax, keyPositions,
        batch.position(first + q), moments, i, firstLive ? 0f : (float) shrink);
    entropyShifts[i] = firstLive ? 0
        : shrink * (entropyShifts[i] + ((double) newMax - oldMax) * oldSum);
    return sum;
  }

  /**
   * Ends a query tile of {@code rows} rows from query {@code q0}: each row's statistics, from
   * its final max and sum, added to {@code sums[0, COUNT)}. {@code t}: the sequence's tokens.
   */
  void endTile(int q0, int rows, float[] rowMax, float[] rowSum, TokenBatch batch, int first,
      int t, double[] sums) {
    for (int i = 0; i < rows; i++) {
      if (!(rowSum[i] > 0)) {
        uniformRow(q0 + i, batch, first, t, sums);
        continue;
      }
      double sum = rowSum[i];
      double max = rowMax[i];
      MATH.momentSums(moments, i, rowMoments);
      sums[0] += (entropyShifts[i] + rowMoments[0]) / sum + Math.log(sum);
      sums[1] += rowMoments[1] / sum;
      sums[2] += weight(firstScore[i], max, sum);
      sums[3] += weight(selfScore[i], max, sum);
      sums[4] += weight(previousScore[i], max, sum);
      sums[5] += weight(nextScore[i], max, sum);
      sums[6] += 1 / sum;
    }
  }

  private static double weight(float score, double max, double sum) {
    return score == Float.NEGATIVE_INFINITY ? 0 : Math.exp(score - max) / sum;
  }

  /** A row every key of which is masked: weights 1/T over the sequence, as the full path's. */
  private static void uniformRow(int q, TokenBatch batch, int first, int t, double[] sums) {
    float[] weights = new float[t];
    float[] positions = new float[t];
    Arrays.fill(weights, 1f / t);
    for (int j = 0; j < t; j++) {
      positions[j] = batch.position(first + j);
    }
    HeadStatistics.addRow(weights, 0, q, t, positions, sums, 0);
  }
}
