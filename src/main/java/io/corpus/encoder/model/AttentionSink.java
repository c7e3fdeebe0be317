package io.corpus.encoder.model;

/** Receives attention weights from the forward pass, one head of one sequence at a time. */
public interface AttentionSink {
  /** Wants nothing: no layer's maps, statistics or value norms. */
  AttentionSink NONE = new AttentionSink() {
    @Override
    public boolean wantsLayer(int layer) {
      return false;
    }

    @Override
    public void accept(int layer, int sequence, int head, float[] weights, int offset,
        int length) {
    }

    @Override
    public boolean wantsWeights(int layer, int sequence) {
      return false;
    }

    @Override
    public boolean wantsStatistics() {
      return false;
    }
  };

  /** Whether maps of this layer are wanted; a layer nobody wants is not handed out. */
  boolean wantsLayer(int layer);

  /**
   * Weights after softmax of one head: a (T, T) block at {@code weights[offset]}, row = query,
   * column = key, over the sequence's real tokens. The buffer is reused after the call returns.
   */
  void accept(int layer, int sequence, int head, float[] weights, int offset, int length);

  /**
   * Whether this layer's weights of this sequence are wanted ({@link #accept}); when not, a
   * long sequence's attention is tiled and only its statistics are handed out
   * ({@link #acceptStatistics}).
   */
  default boolean wantsWeights(int layer, int sequence) {
    return true;
  }

  /** Whether statistics are wanted of the sequences whose weights are not. */
  default boolean wantsStatistics() {
    return true;
  }

  /**
   * One head's {@link HeadStatistics}, summed over the sequence's query rows ({@code COUNT}
   * values), for a sequence whose weights were not wanted and whose attention was tiled.
   */
  default void acceptStatistics(int layer, int sequence, int head, double[] sums) {
  }

  /** Whether {@link #acceptValueNorms} is wanted for this layer (one it wants) and sequence. */
  default boolean wantsValueNorms(int layer, int sequence) {
    return false;
  }

  /**
   * The norms ‖(x_j W_V^h + b_V^h) W_O^h‖₂ of what each real token j adds to a query's output
   * through head h, W_O^h being the block of the output projection that h's context feeds (its
   * bias left out) and x_j what the layer's attention reads: (H, T) at {@code norms[0]}, head
   * by head. Handed out before the layer's {@link #accept} calls for the sequence.
   */
  default void acceptValueNorms(int layer, int sequence, float[] norms, int length) {
  }
}
