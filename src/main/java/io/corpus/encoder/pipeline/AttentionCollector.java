package io.corpus.encoder.pipeline;

import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.model.AttentionSink;
import io.corpus.encoder.model.HeadStatistics;
import io.corpus.encoder.model.Rollout;
import io.corpus.encoder.model.TokenBatch;
import java.util.ArrayList;
import java.util.List;

/**
 * What one batch's attention weights leave behind, per sequence, until its output rows are built:
 * copies of the kept maps (or their head means; weights, or weights times value norms),
 * statistics sums of every layer and head, rollout, and head importances. Weights arrive per
 * layer, sequence and head, in that order (see {@link AttentionSink}).
 */
final class AttentionCollector implements AttentionSink {
  /** One kept map: layer, head (-1 for a mean of heads) and (T, T) weights over real tokens. */
  record Map(int layer, int head, float[] weights) {}

  private final AttentionOutputs outputs;
  private final int layers;
  private final int heads;
  private final int keptHeadCount;
  private final int firstKeptHead;
  private final int lastKeptHead;
  private boolean[] kept;                       // (B) maps and rollout kept for the sequence
  private final List<List<Map>> maps = new ArrayList<>();
  private final List<float[]> positions = new ArrayList<>();   // (B) x (T) as floats; for stats
  private double[][] statSums;                  // (B) x (L * H * COUNT)
  private Rollout[] rollouts;                   // (B), null where not kept
  private float[][] headSums;                   // (B) x (T * T), for average-heads
  private double[][] importance;                // (B) x (L * H), null where not measured
  private float[] valueNorms;                   // (H, T) of the layer and sequence being handed

  AttentionCollector(AttentionOutputs outputs, int layers, int heads) {
    this.outputs = outputs;
    this.layers = layers;
    this.heads = heads;
    List<Integer> kept = outputs.heads().isEmpty()
        ? java.util.stream.IntStream.range(0, heads).boxed().toList() : outputs.heads();
    this.keptHeadCount = kept.size();
    this.firstKeptHead = java.util.Collections.min(kept);
    this.lastKeptHead = java.util.Collections.max(kept);
  }

  /** Starts a batch; {@code kept[b]} says whether sequence b's maps and rollout are kept. */
  void reset(TokenBatch batch, boolean[] kept) {
    this.kept = kept;
    int sequences = batch.sequenceCount();
    maps.clear();
    positions.clear();
    for (int b = 0; b < sequences; b++) {
      maps.add(new ArrayList<>());
      if (outputs.stats()) {
        int first = batch.firstRow(b);
        float[] p = new float[batch.length(b)];
        for (int i = 0; i < p.length; i++) {
          p[i] = batch.position(first + i);
        }
        positions.add(p);
      }
    }
    statSums = outputs.stats() ? new double[sequences][layers * heads * HeadStatistics.COUNT]
        : null;
    rollouts = outputs.rollout() ? new Rollout[sequences] : null;
    headSums = outputs.averageHeads() ? new float[sequences][] : null;
    importance = outputs.importance() ? new double[sequences][] : null;
  }

  /** Sequence b's head importances, (L · H) at layer · H + head, or null when not measured. */
  double[] importance(int sequence) {
    return importance == null ? null : importance[sequence];
  }

  void setImportance(int sequence, double[] values) {
    importance[sequence] = values;
  }

  List<Map> maps(int sequence) {
    return maps.get(sequence);
  }

  /** Sums of each layer's and head's statistics, at ((layer * H) + head) * COUNT; or null. */
  double[] statSums(int sequence) {
    return statSums == null ? null : statSums[sequence];
  }

  /** The sequence's rollout (T, T) over real tokens, or null when not kept or not asked for. */
  float[] rollout(int sequence) {
    return rollouts == null || rollouts[sequence] == null ? null : rollouts[sequence].result();
  }

  @Override
  public boolean wantsLayer(int layer) {
    return outputs.stats() || outputs.rollout() || outputs.keepsLayer(layer);
  }

  @Override
  public boolean wantsWeights(int layer, int sequence) {
    return kept[sequence] && (outputs.rollout() || outputs.keepsLayer(layer));
  }

  @Override
  public boolean wantsStatistics() {
    return statSums != null;
  }

  @Override
  public void acceptStatistics(int layer, int sequence, int head, double[] sums) {
    int at = (layer * heads + head) * HeadStatistics.COUNT;
    for (int s = 0; s < sums.length; s++) {
      statSums[sequence][at + s] += sums[s];
    }
  }

  @Override
  public boolean wantsValueNorms(int layer, int sequence) {
    return outputs.measure() == AttentionOutputs.Measure.NORMS && kept[sequence]
        && outputs.keepsLayer(layer);
  }

  @Override
  public void acceptValueNorms(int layer, int sequence, float[] norms, int length) {
    valueNorms = norms;
  }

  @Override
  public void accept(int layer, int sequence, int head, float[] weights, int offset, int length) {
    if (statSums != null) {
      HeadStatistics.addMap(weights, offset, length, positions.get(sequence),
          statSums[sequence], (layer * heads + head) * HeadStatistics.COUNT);
    }
    if (!kept[sequence]) {
      return;
    }
    if (rollouts != null) {
      if (rollouts[sequence] == null) {
        rollouts[sequence] = new Rollout(length);
      }
      rollouts[sequence].addHead(weights, offset);
      if (head == heads - 1) {
        rollouts[sequence].endLayer(heads);
      }
    }
    if (outputs.keepsLayer(layer) && outputs.keepsHead(head)) {
      if (outputs.measure() == AttentionOutputs.Measure.NORMS) {
        weights = normWeighted(weights, offset, length, head);
        offset = 0;
      }
      if (headSums != null) {
        addToMean(layer, sequence, head, weights, offset, length);
      } else {
        float[] copy = new float[length * length];
        System.arraycopy(weights, offset, copy, 0, copy.length);
        maps.get(sequence).add(new Map(layer, head, copy));
      }
    }
  }

  /** α_ij · ‖f_h(x_j)‖: each key's column of the head's map scaled by its value norm. */
  private float[] normWeighted(float[] weights, int offset, int length, int head) {
    float[] scaled = new float[length * length];
    int norms = head * length;
    for (int i = 0; i < length; i++) {
      for (int j = 0; j < length; j++) {
        scaled[i * length + j] = weights[offset + i * length + j] * valueNorms[norms + j];
      }
    }
    return scaled;
  }

  /** Adds a kept head to the layer's sum; after the last kept head, stores the mean. */
  private void addToMean(int layer, int sequence, int head, float[] weights, int offset,
      int length) {
    float[] sum = headSums[sequence];
    if (sum == null || head == firstKeptHead) {
      sum = new float[length * length];
      headSums[sequence] = sum;
    }
    for (int i = 0; i < sum.length; i++) {
      sum[i] += weights[offset + i];
    }
    if (head == lastKeptHead) {
      float scale = 1f / keptHeadCount;
      for (int i = 0; i < sum.length; i++) {
        sum[i] *= scale;
      }
      maps.get(sequence).add(new Map(layer, -1, sum));
      headSums[sequence] = null;
    }
  }
}
