package io.corpus.encoder.model;

import io.corpus.encoder.kernel.LayerNorm;
import io.corpus.encoder.kernel.RowMajorBlas;
import io.corpus.encoder.kernel.Vectors;

/**
 * DeBERTa's disentangled attention: besides q_i·k_j, each score gets a content-to-position term
 * q_i · pk[r] and a position-to-content term k_j · pq[r], where pk and pq are the model's 2S
 * relative embeddings projected by the layer (its own key and query projections, or separate
 * ones) and r the row of the distance i − j: {@link #index}. Every term is divided by
 * √(D · (1 + number of position terms)), which the family sets as the score scale.
 *
 * @param span S: the relative embeddings hold 2S rows ({@code position_buckets}, else
 *     {@code max_relative_positions})
 * @param buckets {@code position_buckets}: distances beyond half of it share log-spaced
 *     buckets; 0 for none
 * @param maxRelative {@code max_relative_positions}: where the log-spaced buckets end
 * @param contentToPosition the c2p term
 * @param positionToContent the p2c term
 * @param sharedProjections the layer's own key and query projections project the relative
 *     embeddings ({@code share_att_key}); else its {@code pos_key_proj} and {@code pos_query_proj}
 * @param normalized the relative embeddings go through a LayerNorm first
 *     ({@code norm_rel_ebd = layer_norm})
 */
public record DisentangledPositions(int span, int buckets, int maxRelative,
    boolean contentToPosition, boolean positionToContent, boolean sharedProjections,
    boolean normalized) implements PositionTerms {

  public DisentangledPositions {
    if (!contentToPosition && !positionToContent) {
      throw new IllegalArgumentException("disentangled attention has a c2p or a p2c term");
    }
    if (span < 1 || buckets < 0 || buckets == 1 || maxRelative < 1) {
      throw new IllegalArgumentException("disentangled attention needs a positive span, no "
          + "buckets or at least 2 and a positive maximum distance, got " + span + ", "
          + buckets + ", " + maxRelative);
    }
  }

  /**
   * The row of the relative embeddings for query position minus key position
   * {@code relative}: its bucket + S, clamped to 0..2S − 1, as {@code c2p_pos} and
   * {@code p2c_pos} are (the bucket is odd in the distance, so p2c's −r(j − i) is r(i − j)).
   */
  public int index(int relative) {
    return Math.max(0, Math.min(2 * span - 1, bucket(relative) + span));
  }

  /**
   * {@code make_log_bucket_position}: distances under half the buckets are their own bucket,
   * larger ones log-spaced up to {@code maxRelative}, computed in float32 as torch computes it,
   * so the edges fall where they fall there. Without buckets, the distance itself.
   */
  int bucket(int relative) {
    if (buckets <= 0) {
      return relative;
    }
    int mid = buckets / 2;
    int distance = relative < mid && relative > -mid ? mid - 1 : Math.abs(relative);
    if (distance <= mid) {
      return relative;
    }
    float log = (float) Math.log((float) distance / mid);
    float end = (float) Math.log((float) ((double) (maxRelative - 1) / mid));
    int position = (int) Math.ceil(log / end * (mid - 1)) + mid;
    return relative < 0 ? -position : position;
  }

  /**
   * The relative embeddings as the layers read them: the (2S, E) table normalized by
   * {@code norm_rel_ebd}'s LayerNorm (scale and shift, or null for none).
   */
  public static float[] normalized(float[] relative, float[] gamma, float[] beta, double eps) {
    if (gamma == null) {
      return relative;
    }
    float[] out = new float[relative.length];
    LayerNorm.apply(relative, 0, out, 0, relative.length / gamma.length, gamma, beta,
        (float) eps);
    return out;
  }

  /**
   * The (2S, E) relative embeddings projected by a layer's (out, E) weight and (out) bias, as a
   * key or query projection projects tokens: (2S, out).
   */
  public static float[] project(float[] relative, float[] weight, float[] bias) {
    int out = bias.length;
    int width = weight.length / out;
    int rows = relative.length / width;
    float[] table = new float[rows * out];
    Vectors.fillRows(table, 0, rows, bias);
    RowMajorBlas.gemm(false, true, rows, out, width, 1f, relative, 0, width, weight, 0, width,
        1f, table, 0, out);
    return table;
  }
}
