package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Bfloat16Rows;
import io.corpus.encoder.kernel.ComputeThreads;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One layer's attention over a batch's sequences, from the fused q, k, v buffer into the (N, H·D)
 * context. The sequences the sink reads (maps, value norms) are attended one at a time on the
 * caller's thread; the others are items spread over the task's cores ({@link ComputeThreads}):
 * a short sequence whole, a long one's (head, query tile) pairs, each on its lane's own
 * {@link HeadAttention}. A long sequence's statistics are summed per tile, then tile by tile in
 * order, so they are the same bits however many threads ran the tiles. DeBERTa's position
 * terms hold one head's products at a time, so its sequences are all attended on the caller's
 * thread.
 *
 * <p>Not thread-safe: one per encoder.
 */
final class BatchAttention {
  /**
   * Longest sequence whose heads share one softmax pass ({@link HeadAttention#full}) when
   * its maps are not wanted: the H score matrices, 4·H·T² bytes, stay in L2 (192 KB at H = 12).
   */
  static final int ALL_HEADS_LENGTH = 64;

  /** A sequence's value norms, (H, T), for the sink: from its first row and length. */
  interface ValueNorms {
    float[] of(int first, int t);
  }

  private final int heads;
  private final int headWidth;
  private final int inner;        // H·D
  private final ComputeThreads.Task threads;
  private final ScoreTerms terms;                // made per sequence where terms.perSequence()
  private final Supplier<HeadAttention> newHead;
  private final HeadAttention[] lanes;           // each lane's, made on its first use
  private final AttentionItems items = new AttentionItems();
  private final boolean bfloat16Tiles;           // long sequences' tiles multiply in bfloat16
  private final Bfloat16Rows rounded;            // their q, k, v rounded; null: float32 tiles
  private KeyValueHeads keysValues;              // float32 tiles' k and v, dense; on first use

  /**
   * {@code bfloat16Tiles}: a long sequence's tiles multiply in bfloat16 with float32 sums (the
   * layers' products are bfloat16), its q, k and v rounded once per layer.
   */
  BatchAttention(int heads, int headWidth, ComputeThreads.Task threads,
      ScoreTerms terms, Supplier<HeadAttention> newHead, boolean bfloat16Tiles) {
    this.bfloat16Tiles = bfloat16Tiles;
    this.rounded = bfloat16Tiles ? new Bfloat16Rows() : null;
    this.heads = heads;
    this.headWidth = headWidth;
    this.inner = heads * headWidth;
    this.threads = threads;
    this.terms = terms;
    this.newHead = newHead;
    this.lanes = new HeadAttention[threads.lanes()];
  }

  /** The caller's lane's attention: its offsets into the fused buffer are every lane's. */
  HeadAttention head() {
    return lane(0);
  }

  /**
   * context (N, H·D) = concat over heads of softmax(Q_h K_hᵀ / √D + terms + mask) V_h for each
   * sequence of the batch, from qkv. Sequences longer than the attention tile are tiled unless
   * their maps are wanted; {@code sink} gets what it asks of layer {@code layer}
   * ({@link AttentionSink#NONE} asks nothing).
   */
  void attend(TokenBatch batch, float[] qkv, float[] context, int layer, AttentionMask mask,
      AttentionSink sink, ValueNorms norms) {
    int tile = head().tile();
    boolean listening = sink.wantsLayer(layer);
    boolean statistics = sink.wantsStatistics();
    items.clear();
    if (!bfloat16Tiles) {
      keysValues().clear(batch.sequenceCount());
    }
    for (int b = 0; b < batch.sequenceCount(); b++) {
      int t = batch.length(b);
      boolean read = listening && (t <= tile || sink.wantsWeights(layer, b)
          || sink.wantsValueNorms(layer, b));
      if (read || terms.perSequence()) {
        attendAlone(batch, b, qkv, context, layer, mask, sink, norms);
      } else if (t <= tile) {
        items.add(b, -1, 0);
      } else {
        for (int h = 0; h < heads; h++) {
          for (int q0 = 0; q0 < t; q0 += tile) {
            items.add(b, h, q0);
          }
        }
      }
    }
    roundTiledSequences(batch, qkv);
    copyTiledKeysValues(batch, qkv);
    double[][] partials = statistics ? new double[items.count()][] : null;
    threads.run(items.count(), (i, lane) -> {
      int b = items.sequence(i);
      if (items.head(i) < 0) {
        attendShort(batch, b, qkv, context, mask, lane(lane));
      } else {
        double[] partial = statistics ? new double[HeadStatistics.COUNT]
            : HeadAttention.NO_STATISTICS;
        attendTile(batch, b, items.head(i), items.queryTile(i), qkv, context, mask, lane(lane),
            partial);
        if (statistics) {
          partials[i] = partial;
        }
      }
    });
    if (statistics) {
      for (int i = 0; i < items.count(); i++) {   // a head's tiles are consecutive items
        if (items.head(i) >= 0 && items.queryTile(i) == 0) {
          double[] sum = new double[HeadStatistics.COUNT];
          for (int j = i; j < items.count() && items.sequence(j) == items.sequence(i)
              && items.head(j) == items.head(i); j++) {
            addTo(sum, partials[j]);
          }
          sink.acceptStatistics(layer, items.sequence(i), items.head(i), sum);
        }
      }
    }
  }

  /**
   * With float32 tiles: the k and v rows of each sequence cut into tiles copied into dense blocks,
   * a (sequence, KV head) pair an item on the task's cores.
   */
  private void copyTiledKeysValues(TokenBatch batch, float[] qkv) {
    if (bfloat16Tiles) {
      return;
    }
    copyKeysValues(qkv, blocks -> {
      for (int i = 0; i < items.count(); i++) {
        int b = items.sequence(i);
        if (items.head(i) >= 0) {
          blocks.add(b, batch.firstRow(b), batch.length(b));
        }
      }
    });
  }

  /**
   * The sequences {@code adding} adds to the dense blocks (those already added this layer are
   * kept), their (sequence, KV head) pairs copied out of qkv on the task's cores.
   */
  private void copyKeysValues(float[] qkv, Consumer<KeyValueHeads> adding) {
    KeyValueHeads blocks = keysValues();
    int copied = blocks.pairs();
    adding.accept(blocks);
    threads.run(blocks.pairs() - copied, (i, lane) -> blocks.copy(copied + i, qkv));
  }

  private KeyValueHeads keysValues() {
    if (keysValues == null) {
      keysValues = new KeyValueHeads(head().fused());
    }
    return keysValues;
  }

  /** With bfloat16 tiles: the q, k, v rows of each sequence cut into tiles, rounded. */
  private void roundTiledSequences(TokenBatch batch, float[] qkv) {
    int last = -1;
    for (int i = 0; i < items.count() && bfloat16Tiles; i++) {
      int b = items.sequence(i);
      if (items.head(i) >= 0 && b != last) {
        roundForTiles(batch, b, qkv);
        last = b;
      }
    }
  }

  /**
   * Sequence b's q, k, v rows rounded to bfloat16 at their places. The room is the whole
   * batch's, made by the first sequence a layer rounds (the same size for every later one, so
   * it never grows under rows already rounded); a batch with no tiled sequence makes none.
   */
  private void roundForTiles(TokenBatch batch, int b, float[] qkv) {
    int ld = head().qkvWidth();
    rounded.reserve((long) batch.tokenCount() * ld);
    rounded.round(qkv, batch.firstRow(b) * ld, batch.length(b) * ld);
  }

  /** Sequence b attended on this thread, its maps, value norms and statistics to the sink. */
  private void attendAlone(TokenBatch batch, int b, float[] qkv, float[] context, int layer,
      AttentionMask mask, AttentionSink sink, ValueNorms norms) {
    HeadAttention head = head();
    int first = batch.firstRow(b);
    int t = batch.length(b);
    int keys = batch.keys(b);
    terms.sequence(batch, first, t);
    if (sink.wantsValueNorms(layer, b)) {
      sink.acceptValueNorms(layer, b, norms.of(first, t), t);
    }
    boolean listening = sink.wantsLayer(layer);
    if (!listening && t <= head.tile()) {
      attendShort(batch, b, qkv, context, mask, head);
      return;
    }
    // the whole map where its weights are wanted; else tiled, with statistics if asked
    boolean full = sink.wantsWeights(layer, b) || t <= head.tile();
    if (!full && bfloat16Tiles) {
      roundForTiles(batch, b, qkv);
    } else if (!full) {
      copyKeysValues(qkv, blocks -> blocks.add(b, first, t));
    }
    for (int h = 0; h < heads; h++) {
      if (full) {
        head.full(batch, first, t, keys, h, 1, mask, qkv, context);
        if (listening) {
          sink.accept(layer, b, h, head.weights(t), 0, t);
        }
        continue;
      }
      boolean statistics = sink.wantsStatistics();
      double[] sum = statistics ? new double[HeadStatistics.COUNT]
          : HeadAttention.NO_STATISTICS;
      double[] partial = statistics ? new double[HeadStatistics.COUNT]
          : HeadAttention.NO_STATISTICS;
      for (int q0 = 0; q0 < t; q0 += head.tile()) {
        Arrays.fill(partial, 0);
        attendTile(batch, b, h, q0, qkv, context, mask, head, partial);
        addTo(sum, partial);
      }
      if (statistics) {
        sink.acceptStatistics(layer, b, h, sum);
      }
    }
  }

  /** Sequence b, no longer than the tile, whole: its heads in one softmax pass if short. */
  private void attendShort(TokenBatch batch, int b, float[] qkv, float[] context,
      AttentionMask mask, HeadAttention head) {
    int first = batch.firstRow(b);
    int t = batch.length(b);
    if (t <= ALL_HEADS_LENGTH) {
      head.full(batch, first, t, batch.keys(b), 0, heads, mask, qkv, context);
      return;
    }
    for (int h = 0; h < heads; h++) {
      head.full(batch, first, t, batch.keys(b), h, 1, mask, qkv, context);
    }
  }

  /** Head h of sequence b for the query tile from query q0, its statistics added to partial. */
  private void attendTile(TokenBatch batch, int b, int h, int q0, float[] qkv, float[] context,
      AttentionMask mask, HeadAttention head, double[] partial) {
    int first = batch.firstRow(b);
    int row = first * head.qkvWidth();                              // Q_h, K_h, V_h: (T, D)
    int q = row + head.queryOffset(h);
    int out = first * inner + h * headWidth;                        // (T, D) out
    if (bfloat16Tiles) {
      head.tiled(batch, first, batch.length(b), batch.keys(b), h, q0, mask, qkv, q, qkv,
          row + head.keyOffset(h), row + head.valueOffset(h), head.qkvWidth(), context, out,
          partial, rounded);
    } else {
      int g = head.fused().kvHead(h);
      head.tiled(batch, first, batch.length(b), batch.keys(b), h, q0, mask, qkv, q,
          keysValues.rows(), keysValues.keys(b, g), keysValues.values(b, g), headWidth, context,
          out, partial, null);
    }
  }

  private static void addTo(double[] sum, double[] part) {
    for (int i = 0; i < sum.length; i++) {
      sum[i] += part[i];
    }
  }

  /** Lane {@code lane}'s attention, made on its first use. */
  private HeadAttention lane(int lane) {
    if (lanes[lane] == null) {
      lanes[lane] = newHead.get();
    }
    return lanes[lane];
  }
}
