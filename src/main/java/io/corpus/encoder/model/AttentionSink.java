package io.corpus.encoder.model;

/** Receives attention weights from the forward pass, one head of one sequence at a time. */
public interface AttentionSink {
  /** Whether maps of this layer are wanted; a layer nobody wants is not handed out. */
  boolean wantsLayer(int layer);

  /**
   * Weights after softmax of one head: a (T, T) block at {@code weights[offset]}, row = query,
   * column = key, over the sequence's real tokens. The buffer is reused after the call returns.
   */
  void accept(int layer, int sequence, int head, float[] weights, int offset, int length);
}
