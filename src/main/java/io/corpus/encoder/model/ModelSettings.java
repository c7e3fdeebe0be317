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
 * @param window W: a key is allowed when |query − key| ≤ W; 0 means no window (weights files;
 *     a folder's windows are per layer, in the architecture's layers). A layer with a window of
 *     its own keeps it
 * @param positional positions added to the input before layer 0 (weights files)
 */
public record ModelSettings(int heads, Architecture architecture, int window,
    PositionalEncoding positional) implements Serializable {

  /**
   * The heads' shape beyond H, where a family sets it.
   *
   * @param kvHeads Hkv, the key and value heads (grouped-query attention: query head h reads KV
   *     head h / (H / Hkv)); 0 means H
   * @param headWidth D; 0 means E / H (then H must divide E)
   * @param scoreScale what q·k is multiplied by; 0 means 1/√D
   */
  public record AttentionHeads(int kvHeads, int headWidth, double scoreScale)
      implements Serializable {
    /** H heads of E / H values, KV heads as many, scores scaled by 1/√D: most encoders. */
    public static final AttentionHeads PLAIN = new AttentionHeads(0, 0, 0);

    public AttentionHeads {
      if (kvHeads < 0 || headWidth < 0 || !(scoreScale >= 0) || Double.isInfinite(scoreScale)) {
        throw new IllegalArgumentException("KV heads, head width and score scale are 0 (the "
            + "default) or positive, got " + kvHeads + ", " + headWidth + ", " + scoreScale);
      }
    }
  }

  public ModelSettings {
    if (heads < 1) {
      throw new IllegalArgumentException("heads must be at least 1, got " + heads);
    }
    if (window < 0) {
      throw new IllegalArgumentException("window must be 0 (none) or positive, got " + window);
    }
    if (architecture == null || positional == null) {
      throw new IllegalArgumentException("a model has an architecture and positions (NONE)");
    }
    if (architecture.attention().kvHeads() > 0 && heads % architecture.attention().kvHeads() != 0) {
      throw new IllegalArgumentException("KV heads = " + architecture.attention().kvHeads()
          + " does not divide the heads H = " + heads);
    }
  }

  /** Hkv. */
  public int kvHeads() {
    int given = architecture.attention().kvHeads();
    return given > 0 ? given : heads;
  }

  /** D for a model of width E. */
  public int headWidth(int width) {
    int given = architecture.attention().headWidth();
    if (given > 0) {
      return given;
    }
    if (width % heads != 0) {
      throw new IllegalArgumentException("heads = " + heads + " does not divide the width E = "
          + width);
    }
    return width / heads;
  }

  /** What q·k is multiplied by, for heads of width D. */
  public double scoreScale(int headWidth) {
    double given = architecture.attention().scoreScale();
    return given > 0 ? given : 1.0 / Math.sqrt(headWidth);
  }

  /** How layer l attends. */
  public LayerAttention layer(int l) {
    List<LayerAttention> layers = architecture.layers();
    return layers.isEmpty() ? LayerAttention.PLAIN : layers.get(l);
  }

  /** The keys a query of layer l may see: the causal rule, and its window or the model's. */
  AttentionMask mask(int l) {
    int own = layer(l).window();
    return new AttentionMask(architecture.causal(), own > 0 ? own : window);
  }
}
