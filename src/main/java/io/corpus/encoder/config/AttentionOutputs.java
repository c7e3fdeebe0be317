package io.corpus.encoder.config;

import io.corpus.encoder.common.ConfigName;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What the job writes about attention ({@code output.attention}): maps of chosen sequences,
 * layers and heads in a chosen format, per-head statistics of every sequence, and rollout.
 *
 * @param enabled write maps to attention/
 * @param layers 0-based layers whose maps are kept; empty = all
 * @param heads 0-based heads whose maps are kept (or averaged); empty = all
 * @param sample fraction of sequences whose maps and rollout are kept, chosen by a hash of the id
 * @param ids the sequences whose maps and rollout are kept; empty = chosen by {@code sample}
 * @param format full (T x T) maps or the top k keys of each query row
 * @param topK k of the top-k format
 * @param averageHeads one map per layer, the mean of the kept heads, written with head = -1
 * @param stats per-head statistics of every sequence to head-stats/
 * @param rollout attention rollout of the kept sequences to rollout/
 * @param measure what a kept map holds: the weights, or each weight times the norm of what its
 *     key adds to the output (Kobayashi et al. 2020)
 * @param statsBy input columns the corpus statistics are grouped by; empty = one group
 * @param importance each head's effect on the pooled vector of the sampled rows
 * @param importanceSample fraction of rows whose head importance is measured, by the id hash
 */
public record AttentionOutputs(boolean enabled, List<Integer> layers, List<Integer> heads,
    double sample, SortedSet<String> ids, MapFormat format, int topK, boolean averageHeads,
    boolean stats, boolean rollout, Measure measure, List<String> statsBy, boolean importance,
    double importanceSample) implements Serializable {

  public static final AttentionOutputs NONE = maps(false, List.of(), List.of());

  /** What a kept map holds ({@code output.attention.measure}). */
  public enum Measure implements ConfigName {
    /** α_ij, the weights after softmax: to attention/. */
    WEIGHTS("weights", "attention"),
    /**
     * α_ij · ‖(x_j W_V^h + b_V^h) W_O^h‖₂, what key j adds to query i's output through head h
     * (the output bias left out): to attention-norms/.
     */
    NORMS("norms", "attention-norms");

    private final String configName;
    private final String table;

    Measure(String configName, String table) {
      this.configName = configName;
      this.table = table;
    }

    @Override
    public String configName() {
      return configName;
    }

    /** The output folder's table of maps of this measure. */
    public String table() {
      return table;
    }
  }

  /** How a kept map is written. */
  public enum MapFormat implements ConfigName {
    /** weights: (T, T) floats. */
    FULL("full"),
    /** top_keys and top_weights: per query row, the k largest weights and their key positions. */
    TOP_K("top-k");

    private final String configName;

    MapFormat(String configName) {
      this.configName = configName;
    }

    @Override
    public String configName() {
      return configName;
    }
  }

  public AttentionOutputs {
    layers = List.copyOf(layers);
    heads = List.copyOf(heads);
    ids = Collections.unmodifiableSortedSet(new TreeSet<>(ids));
    if (!(sample > 0 && sample <= 1)) {
      throw new IllegalArgumentException("sample must be in (0, 1], got " + sample);
    }
    if (!ids.isEmpty() && sample < 1) {
      throw new IllegalArgumentException("set either ids or sample, not both");
    }
    if (topK < 1) {
      throw new IllegalArgumentException("top-k must be at least 1, got " + topK);
    }
    statsBy = List.copyOf(statsBy);
    if (!statsBy.isEmpty() && !stats) {
      throw new IllegalArgumentException("statistics are grouped by " + statsBy + " only when "
          + "they are written (stats = true)");
    }
    if (!(importanceSample > 0 && importanceSample <= 1)) {
      throw new IllegalArgumentException("importance-sample must be in (0, 1], got "
          + importanceSample);
    }
  }

  /** Full maps of every sequence for the given layers and heads; no statistics or rollout. */
  public static AttentionOutputs maps(boolean enabled, List<Integer> layers, List<Integer> heads) {
    return new AttentionOutputs(enabled, layers, heads, 1.0, new TreeSet<>(), MapFormat.FULL, 8,
        false, false, false, Measure.WEIGHTS, List.of(), false, 1.0);
  }

  /** Whether anything about attention is written. */
  public boolean any() {
    return enabled || stats || rollout || importance;
  }

  /** Whether the row with this id (its string form) has its head importance measured. */
  public boolean measuresImportance(String id) {
    return importance && (importanceSample >= 1 || unitHash(id) < importanceSample);
  }

  public boolean keepsLayer(int layer) {
    return enabled && (layers.isEmpty() || layers.contains(layer));
  }

  public boolean keepsHead(int head) {
    return enabled && (heads.isEmpty() || heads.contains(head));
  }

  /**
   * Whether the sequence with this id (its string form) has its maps and rollout kept: listed in
   * {@code ids}, or, without ids, its hash falls below {@code sample}. The hash is stable, so a
   * rerun keeps the same sequences, and a larger sample keeps a superset.
   */
  public boolean keepsSequence(String id) {
    if (!ids.isEmpty()) {
      return ids.contains(id);
    }
    return sample >= 1 || unitHash(id) < sample;
  }

  /** A hash of the id's UTF-8 bytes in [0, 1): 64-bit FNV-1a, then SplitMix64's finalizer. */
  public static double unitHash(String id) {
    long h = 0xcbf29ce484222325L;
    for (byte b : id.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    h = (h ^ (h >>> 30)) * 0xbf58476d1ce4e5b9L;
    h = (h ^ (h >>> 27)) * 0x94d049bb133111ebL;
    h ^= h >>> 31;
    return (h >>> 11) * 0x1.0p-53;
  }

  /** Refuses layer and head indices the model does not have, naming them. */
  public void checkIndices(int layerCount, int headCount) {
    if (layerCount == 0 && any()) {
      throw new IllegalArgumentException("The model has no attention (static embeddings: a "
          + "lookup and a mean): attention maps, statistics, rollout and head importance do not "
          + "apply; leave output.attention out");
    }
    for (int layer : layers) {
      if (layer >= layerCount) {
        throw new IllegalArgumentException("Attention layer " + layer + " does not exist: the "
            + "model has " + layerCount + " layers (0-based)");
      }
    }
    for (int head : heads) {
      if (head >= headCount) {
        throw new IllegalArgumentException("Attention head " + head + " does not exist: the "
            + "model has " + headCount + " heads (0-based)");
      }
    }
  }
}
