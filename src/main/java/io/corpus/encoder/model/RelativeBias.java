package io.corpus.encoder.model;

/**
 * A {@link ScoreBias} as the fast encoder adds it: for each head, the bias of every key − query
 * distance a batch holds, in float, computed once and grown when a longer sequence arrives. Not
 * thread-safe (it grows); one per encoder.
 */
final class RelativeBias implements ScoreTerms {
  private final ScoreBias form;
  private final float[] table;     // (buckets, H) of relative buckets; empty for ALiBi
  private final int heads;
  private int span = -1;           // distances −span..span are covered
  private float[] values = new float[0];   // (H, 2·span + 1)

  RelativeBias(ScoreBias form, float[] table, int heads) {
    if (form.kind() == ScoreBias.Kind.RELATIVE_BUCKETS
        && table.length != form.buckets() * heads) {
      throw new IllegalArgumentException("relative buckets need a (" + form.buckets() + ", "
          + heads + ") table of biases, got " + (table.length == 0 ? "none" : table.length
          + " values"));
    }
    this.form = form;
    this.table = table;
    this.heads = heads;
  }

  /** Covers the batch's positions. */
  @Override
  public void layer(TokenBatch batch, LayerWeights w, float[] qkv) {
    cover(batch.positionsCovered());
  }

  /** Makes the table cover sequences of up to {@code length} positions. */
  void cover(int length) {
    if (length - 1 <= span) {
      return;
    }
    int grown = Math.max(length - 1, span + span / 2);
    int row = 2 * grown + 1;
    float[] v = new float[heads * row];
    for (int h = 0; h < heads; h++) {
      for (int r = -grown; r <= grown; r++) {
        v[h * row + r + grown] = (float) form.value(h, heads, r, table);
      }
    }
    values = v;
    span = grown;
  }

  /** Adds head h's bias to a block of scores; the table must {@link #cover} them. */
  @Override
  public void add(TokenBatch batch, int first, int h, float[] s, int base, int q0, int bq, int k0,
      int bk, int queryStride, int keyStride) {
    int center = h * (2 * span + 1) + span;
    for (int i = 0; i < bq; i++) {
      int query = batch.position(first + q0 + i);
      int row = base + i * queryStride;
      for (int j = 0; j < bk; j++) {
        s[row + j * keyStride] += values[center + batch.position(first + k0 + j) - query];
      }
    }
  }
}
