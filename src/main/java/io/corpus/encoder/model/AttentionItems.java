package io.corpus.encoder.model;

import java.util.Arrays;

/**
 * One layer's attention cut into items a thread takes whole: a short sequence (head −1), or a
 * long sequence's head and query tile. A long sequence's items are added head by head, tile by
 * tile, so a head's tiles are consecutive. Reused from layer to layer.
 */
final class AttentionItems {
  private int[] items = new int[3 * 64];   // (sequence, head, first query) per item
  private int count;

  AttentionItems clear() {
    count = 0;
    return this;
  }

  void add(int sequence, int head, int firstQuery) {
    if (3 * count + 3 > items.length) {
      items = Arrays.copyOf(items, 2 * items.length);
    }
    items[3 * count] = sequence;
    items[3 * count + 1] = head;
    items[3 * count + 2] = firstQuery;
    count++;
  }

  int count() {
    return count;
  }

  int sequence(int item) {
    return items[3 * item];
  }

  /** The item's head, or −1 for a whole short sequence. */
  int head(int item) {
    return items[3 * item + 1];
  }

  /** The first query of the item's tile. */
  int queryTile(int item) {
    return items[3 * item + 2];
  }
}
