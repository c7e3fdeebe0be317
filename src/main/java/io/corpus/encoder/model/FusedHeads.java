package io.corpus.encoder.model;

/**
 * Where each head lies in a row of the fused q, k, v buffer: H query heads, then Hkv key heads,
 * then Hkv value heads, D values each. Query head h reads KV head h / (H / Hkv) (grouped-query
 * attention; Hkv = H is plain multi-head attention). Everything that reads the fused rows by head
 * takes its offsets from here.
 *
 * @param heads H
 * @param kvHeads Hkv, a divisor of H
 * @param headWidth D
 */
record FusedHeads(int heads, int kvHeads, int headWidth) {

  /** (H + 2·Hkv)·D: a fused row's width. */
  int width() {
    return (heads + 2 * kvHeads) * headWidth;
  }

  /** H·D: the query heads' width, the context's row. */
  int queryWidth() {
    return heads * headWidth;
  }

  /** Where query head h starts in a fused row. */
  int queryOffset(int h) {
    return h * headWidth;
  }

  /** The KV head that query head h reads. */
  int kvHead(int h) {
    return h / (heads / kvHeads);
  }

  /** Where KV head g's key starts in a fused row. */
  int keyOffset(int g) {
    return (heads + g) * headWidth;
  }

  /** Where KV head g's value starts in a fused row. */
  int valueOffset(int g) {
    return (heads + kvHeads + g) * headWidth;
  }
}
