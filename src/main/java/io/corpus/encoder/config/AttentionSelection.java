package io.corpus.encoder.config;

import java.io.Serializable;
import java.util.List;

/**
 * Which attention maps are written ({@code output.attention}).
 *
 * @param layers 0-based layers to keep; empty = all
 * @param heads 0-based heads to keep; empty = all
 */
public record AttentionSelection(boolean enabled, List<Integer> layers, List<Integer> heads)
    implements Serializable {

  public static final AttentionSelection NONE = new AttentionSelection(false, List.of(), List.of());

  public AttentionSelection {
    layers = List.copyOf(layers);
    heads = List.copyOf(heads);
  }

  public boolean keepsLayer(int layer) {
    return enabled && (layers.isEmpty() || layers.contains(layer));
  }

  public boolean keepsHead(int head) {
    return enabled && (heads.isEmpty() || heads.contains(head));
  }
}
