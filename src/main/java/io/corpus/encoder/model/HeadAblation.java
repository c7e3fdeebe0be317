package io.corpus.encoder.model;

/**
 * One head removed from one layer, per sequence of a batch: its context (its α · V) set to zero
 * before that layer's output projection, all else unchanged (Michel et al. 2019, "Are Sixteen
 * Heads Really Better than One?").
 *
 * @param layer the layer whose head is removed
 * @param heads (B): the head removed from sequence b, or -1 for none
 */
public record HeadAblation(int layer, int[] heads) {
  /** No head removed from any layer. */
  public static final HeadAblation NONE = new HeadAblation(-1, new int[0]);

  public HeadAblation {
    heads = heads.clone();
  }
}
