package io.corpus.encoder.model;

import java.io.Serializable;
import java.util.List;

/**
 * How the encoder computes, beyond what its weights say (the weights give L, E, F and P): the
 * number of heads, the {@link Architecture} (a model folder's, as its family reads config.json,
 * or a weights file's, from the job's settings), and what only a weights file asks for.
 *
 * @param heads H; must divide the width E unless the architecture sets the head width
 * @param architecture how the layers compute
 * @param window the keys a query sees by distance, in every layer without a window of its own
 *     (weights files; a folder's windows are per layer, in the architecture's layers)
 * @param positional positions added to the input before layer 0 (weights files)
 */
public record ModelSettings(int heads, Architecture architecture, Window window,
    PositionalEncoding positional) implements Serializable {

  public ModelSettings {
    if (heads < 1) {
      throw new IllegalArgumentException("heads must be at least 1, got " + heads);
    }
    if (architecture == null || window == null || positional == null) {
      throw new IllegalArgumentException("a model has an architecture, a window (GLOBAL) and "
          + "positions (NONE)");
    }
    if (architecture.attention() instanceof AttentionHeads.Shaped shaped
        && heads % shaped.kvHeads() != 0) {
      throw new IllegalArgumentException("KV heads = " + shaped.kvHeads()
          + " does not divide the heads H = " + heads);
    }
  }

  /** Hkv. */
  public int kvHeads() {
    return architecture.attention() instanceof AttentionHeads.Shaped shaped
        ? shaped.kvHeads() : heads;
  }

  /** D for a model of width E. */
  public int headWidth(int width) {
    if (architecture.attention() instanceof AttentionHeads.Shaped shaped) {
      return shaped.headWidth();
    }
    if (width % heads != 0) {
      throw new IllegalArgumentException("heads = " + heads + " does not divide the width E = "
          + width);
    }
    return width / heads;
  }

  /** What q·k is multiplied by, for heads of width D. */
  public double scoreScale(int headWidth) {
    return architecture.attention() instanceof AttentionHeads.Shaped shaped
        ? shaped.scoreScale() : 1.0 / Math.sqrt(headWidth);
  }

  /** How layer l attends. */
  public LayerAttention layer(int l) {
    List<LayerAttention> layers = architecture.layers();
    return layers.isEmpty() ? LayerAttention.PLAIN : layers.get(l);
  }

  /** The keys a query of layer l may see: the causal rule, and its window or the model's. */
  AttentionMask mask(int l) {
    Window own = layer(l).window();
    return new AttentionMask(architecture.causal(), own instanceof Window.Within ? own : window);
  }
}
