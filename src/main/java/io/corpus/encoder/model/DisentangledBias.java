package io.corpus.encoder.model;

import io.corpus.encoder.kernel.RowMajorBlas;

/**
 * DeBERTa's position terms as the fast encoder adds them. For one head of one sequence, two
 * products give every term the sequence needs: C = Q_h · pkᵀ (T, R) and P = K_h · pqᵀ (T, R),
 * over only the R rows of the relative tables that its distances reach (all 2S once a sequence
 * is long; about 2T for a short one); the score of query i and key j then gets
 * C[i, r(i − j)] + P[j, r(i − j)], r being {@link DisentangledPositions#index}. Both products
 * carry the score scale, as q·k does.
 *
 * <p>Per layer, {@link #layer} names the tables and the fused q, k, v buffer; per sequence,
 * {@link #sequence} its rows; the products of a head are made on its first block and kept while
 * the tiles of that head follow. Not thread-safe; one per encoder.
 */
final class DisentangledBias implements ScoreTerms {
  private final DisentangledPositions form;
  private final FusedHeads fused; // where each head lies in the fused q, k, v rows
  private final int headWidth;   // D
  private final int inner;       // H·D: row stride of the relative tables
  private final int qkvWidth;    // (H + 2·Hkv)·D: row stride of the fused q, k, v
  private final float scale;

  private LayerWeights.RelativePositions tables;
  private float[] qkv;
  private int first = -1;        // the sequence's first row in the batch, -1 before sequence()
  private int length;            // T
  private int head = -1;         // the head whose products are held, -1 for none
  private int low;               // the first table row the sequence reaches
  private int rows;              // R, the table rows it reaches
  private float[] contentToPosition = new float[0];   // C (T, R)
  private float[] positionToContent = new float[0];   // P (T, R)
  private int reach = -1;                             // distances −reach..reach are indexed
  private int[] index = new int[0];                   // table row of distance d at d + reach

  DisentangledBias(DisentangledPositions form, FusedHeads fused, double scale) {
    this.form = form;
    this.fused = fused;
    this.headWidth = fused.headWidth();
    this.inner = fused.queryWidth();
    this.qkvWidth = fused.width();
    this.scale = (float) scale;
  }

  /** The layer's relative tables and the q, k, v rows its sequences are attended from. */
  @Override
  public void layer(TokenBatch batch, LayerWeights w, float[] fusedQkv) {
    tables = w.relative();
    qkv = fusedQkv;
    first = -1;
    head = -1;
  }

  @Override
  public boolean perSequence() {
    return true;
  }

  /** The sequence of {@code t} rows from row {@code first} whose heads follow. */
  @Override
  public void sequence(TokenBatch batch, int firstRow, int t) {
    first = firstRow;
    length = t;
    head = -1;
    int distance = batch.position(firstRow + t - 1) - batch.position(firstRow);
    cover(distance);
    low = index[reach - distance];
    rows = index[reach + distance] - low + 1;
    if (contentToPosition.length < t * rows) {
      contentToPosition = new float[t * rows];
      positionToContent = new float[t * rows];
    }
  }

  /** Makes the row table cover distances up to {@code distance} either way. */
  private void cover(int distance) {
    if (distance <= reach) {
      return;
    }
    int grown = Math.max(distance, reach + reach / 2);
    int[] grownIndex = new int[2 * grown + 1];
    for (int d = -grown; d <= grown; d++) {
      grownIndex[d + grown] = form.index(d);
    }
    index = grownIndex;
    reach = grown;
  }

  @Override
  public void add(TokenBatch batch, int firstRow, int h, float[] s, int base, int q0, int bq,
      int k0, int bk, int queryStride, int keyStride) {
    if (firstRow != first) {
      throw new IllegalStateException("position terms asked for the sequence at row "
          + firstRow + " while prepared for the one at " + first);
    }
    if (h != head) {
      products(h);
    }
    boolean c2p = form.contentToPosition();
    boolean p2c = form.positionToContent();
    for (int i = 0; i < bq; i++) {
      int query = q0 + i;
      int queryPosition = batch.position(firstRow + query) + reach;
      int c = query * rows - low;
      int row = base + i * queryStride;
      for (int j = 0; j < bk; j++) {
        int key = k0 + j;
        int r = index[queryPosition - batch.position(firstRow + key)];
        float term = c2p ? contentToPosition[c + r] : 0f;
        if (p2c) {
          term += positionToContent[key * rows - low + r];
        }
        s[row + j * keyStride] += term;
      }
    }
  }

  /** C and P of head h over the sequence's rows. */
  private void products(int h) {
    int row = first * qkvWidth;
    int tableOffset = low * inner + h * headWidth;
    if (form.contentToPosition()) {
      int queries = row + fused.queryOffset(h);
      RowMajorBlas.gemm(false, true, length, rows, headWidth, scale, qkv, queries, qkvWidth,
          tables.keys(), tableOffset, inner, 0f, contentToPosition, 0, rows);
    }
    if (form.positionToContent()) {
      int keys = row + fused.keyOffset(fused.kvHead(h));
      RowMajorBlas.gemm(false, true, length, rows, headWidth, scale, qkv, keys, qkvWidth,
          tables.queries(), tableOffset, inner, 0f, positionToContent, 0, rows);
    }
    head = h;
  }
}
