package io.corpus.encoder.pipeline;

import io.corpus.encoder.config.AttentionSelection;
import io.corpus.encoder.model.AttentionSink;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps copies of the selected heads' maps of one batch, (T, T) over real tokens each, until the
 * batch's output rows are built. Maps arrive per layer, sequence and head; they are stored in
 * that order per sequence.
 */
final class AttentionCollector implements AttentionSink {
  /** One kept map: layer, head and its (T, T) weights over real tokens. */
  record Map(int layer, int head, float[] weights) {}

  private final AttentionSelection selection;
  private final List<List<Map>> bySequence = new ArrayList<>();

  AttentionCollector(AttentionSelection selection) {
    this.selection = selection;
  }

  void reset(int sequences) {
    bySequence.clear();
    for (int b = 0; b < sequences; b++) {
      bySequence.add(new ArrayList<>());
    }
  }

  List<Map> maps(int sequence) {
    return bySequence.get(sequence);
  }

  @Override
  public boolean wantsLayer(int layer) {
    return selection.keepsLayer(layer);
  }

  @Override
  public void accept(int layer, int sequence, int head, float[] weights, int offset, int length) {
    if (selection.keepsHead(head)) {
      float[] copy = new float[length * length];
      System.arraycopy(weights, offset, copy, 0, copy.length);
      bySequence.get(sequence).add(new Map(layer, head, copy));
    }
  }
}
