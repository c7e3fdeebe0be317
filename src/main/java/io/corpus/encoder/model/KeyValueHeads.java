package io.corpus.encoder.model;

import java.util.Arrays;

/**
 * The keys and values of a layer's sequences that attend in float32 tiles, copied out of the
 * fused q, k, v rows into one dense (T, D) block per KV head and sequence, so that the tiles'
 * products read rows D floats apart instead of (H + 2·Hkv)·D. In the fused rows a key tile's 256
 * rows of 64 floats lie 9 KB apart (BERT-base), so they share a few of the L1 cache's sets and
 * evict each other while OpenBLAS packs them; dense, Q Kᵀ ran 10 to 20 % faster on an AVX2 Zen 3
 * (src/site/markdown/speed.md). The copy is 2·Hkv·T·D floats a layer, a few milliseconds at T =
 * 8,192 against the tiles' seconds; the products' arithmetic is the same whatever the stride.
 *
 * <p>Reused from layer to layer; its room grows to the largest layer's sequences and stays.
 */
final class KeyValueHeads {
  private final FusedHeads fused;
  private final int kvHeads;
  private final int headWidth;
  private float[] rows = new float[0];
  private int[] start = new int[0];   // per sequence of the batch: its first block, −1 if none
  private int[] lengths = new int[0];
  private int[] firstRows = new int[0];
  private int[] added = new int[8];   // the sequences added this layer, in order
  private int count;
  private int size;

  /** For the fused rows {@code fused} lays out. */
  KeyValueHeads(FusedHeads fused) {
    this.fused = fused;
    this.kvHeads = fused.kvHeads();
    this.headWidth = fused.headWidth();
  }

  /** Forgets the last layer's sequences; {@code sequences} is the batch's count. */
  void clear(int sequences) {
    if (start.length < sequences) {
      start = new int[sequences];
      lengths = new int[sequences];
      firstRows = new int[sequences];
    }
    Arrays.fill(start, 0, sequences, -1);
    count = 0;
    size = 0;
  }

  /**
   * Makes room for sequence b, t tokens from row {@code first} of the fused buffer (once a layer;
   * again is a no-op). Its blocks are filled by {@link #copy}.
   */
  void add(int b, int first, int t) {
    if (start[b] >= 0) {
      return;
    }
    start[b] = size;
    lengths[b] = t;
    firstRows[b] = first;
    if (count == added.length) {
      added = Arrays.copyOf(added, 2 * count);
    }
    added[count++] = b;
    size = Math.addExact(size, 2 * kvHeads * t * headWidth);
    if (rows.length < size) {
      rows = Arrays.copyOf(rows, Math.max(size, rows.length + rows.length / 2));
    }
  }

  /** The (sequence, KV head) pairs added this layer: what {@link #copy} takes. */
  int pairs() {
    return count * kvHeads;
  }

  /**
   * Copies pair {@code pair} (the sequences in the order added, each's KV heads in order) out of
   * the fused buffer into its key and value blocks. Pairs write disjoint blocks: any thread may
   * copy any pair once every sequence is added.
   */
  void copy(int pair, float[] qkv) {
    int b = added[pair / kvHeads];
    int g = pair % kvHeads;
    int t = lengths[b];
    int keys = keys(b, g);
    int values = values(b, g);
    int key = fused.keyOffset(g);
    int value = fused.valueOffset(g);
    int stride = fused.width();
    for (int i = 0; i < t; i++) {
      int row = (firstRows[b] + i) * stride;
      System.arraycopy(qkv, row + key, rows, keys + i * headWidth, headWidth);
      System.arraycopy(qkv, row + value, rows, values + i * headWidth, headWidth);
    }
  }

  /** The blocks' buffer: row i of a block at its offset + i·D. */
  float[] rows() {
    return rows;
  }

  /** Where sequence b's keys of KV head g start in {@link #rows}. */
  int keys(int b, int g) {
    return start[b] + g * lengths[b] * headWidth;
  }

  /** Where sequence b's values of KV head g start in {@link #rows}. */
  int values(int b, int g) {
    return start[b] + (kvHeads + g) * lengths[b] * headWidth;
  }
}
