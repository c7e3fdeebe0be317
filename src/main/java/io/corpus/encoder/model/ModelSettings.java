package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Activation;
import java.io.Serializable;
import java.util.List;

/**
 * How the encoder computes, beyond what its weights say (the weights give L, E, F and P).
 *
 * @param heads H; must divide the width E
 * @param window W: a key is allowed when |query − key| ≤ W; 0 means no window. A layer with a
 *     window of its own ({@link #layers}) keeps it
 * @param layerNormEps eps inside the square root of every layer norm
 * @param layers how each of the L layers attends (window, rotary base), when layers differ;
 *     empty means every layer is {@link LayerAttention#PLAIN}
 * @param scoreBias a bias every layer adds to its scores by distance (MPNet, ALiBi), or NONE
 * @param attention the heads' shape: KV heads and head width, when they are not H and E/H
 * @param norm LayerNorm or RMSNorm, in every layer and the final norm
 */
public record ModelSettings(
    int heads,
    Activation activation,
    boolean normFirst,
    boolean finalNorm,
    double layerNormEps,
    boolean causal,
    int window,
    PositionalEncoding positional,
    List<LayerAttention> layers,
    ScoreBias scoreBias,
    AttentionHeads attention,
    NormKind norm) implements Serializable {

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

  /** Layers that may differ and a score bias; plain heads, LayerNorm. */
  public ModelSettings(int heads, Activation activation, boolean normFirst, boolean finalNorm,
      double layerNormEps, boolean causal, int window, PositionalEncoding positional,
      List<LayerAttention> layers, ScoreBias scoreBias) {
    this(heads, activation, normFirst, finalNorm, layerNormEps, causal, window, positional,
        layers, scoreBias, AttentionHeads.PLAIN, NormKind.LAYER);
  }

  /** Every layer alike: global (or the window given), no rotary positions. */
  public ModelSettings(int heads, Activation activation, boolean normFirst, boolean finalNorm,
      double layerNormEps, boolean causal, int window, PositionalEncoding positional) {
    this(heads, activation, normFirst, finalNorm, layerNormEps, causal, window, positional,
        List.of(), ScoreBias.NONE);
  }

  /** Layers that may differ, no score bias. */
  public ModelSettings(int heads, Activation activation, boolean normFirst, boolean finalNorm,
      double layerNormEps, boolean causal, int window, PositionalEncoding positional,
      List<LayerAttention> layers) {
    this(heads, activation, normFirst, finalNorm, layerNormEps, causal, window, positional,
        layers, ScoreBias.NONE);
  }

  public ModelSettings {
    if (heads < 1) {
      throw new IllegalArgumentException("heads must be at least 1, got " + heads);
    }
    if (window < 0) {
      throw new IllegalArgumentException("window must be 0 (none) or positive, got " + window);
    }
    if (!(layerNormEps > 0) || Double.isInfinite(layerNormEps)) {
      throw new IllegalArgumentException("layer-norm-eps must be a positive number, got "
          + layerNormEps);
    }
    layers = List.copyOf(layers);
    if (scoreBias == null || attention == null || norm == null) {
      throw new IllegalArgumentException("a model without a score bias, head shape or norm kind "
          + "has ScoreBias.NONE, AttentionHeads.PLAIN, NormKind.LAYER");
    }
    if (attention.kvHeads() > 0 && heads % attention.kvHeads() != 0) {
      throw new IllegalArgumentException("KV heads = " + attention.kvHeads() + " does not "
          + "divide the heads H = " + heads);
    }
  }

  /** Hkv. */
  public int kvHeads() {
    return attention.kvHeads() > 0 ? attention.kvHeads() : heads;
  }

  /** D for a model of width E. */
  public int headWidth(int width) {
    if (attention.headWidth() > 0) {
      return attention.headWidth();
    }
    if (width % heads != 0) {
      throw new IllegalArgumentException("heads = " + heads + " does not divide the width E = "
          + width);
    }
    return width / heads;
  }

  /** What q·k is multiplied by, for heads of width D. */
  public double scoreScale(int headWidth) {
    return attention.scoreScale() > 0 ? attention.scoreScale() : 1.0 / Math.sqrt(headWidth);
  }

  /** How layer l attends. */
  public LayerAttention layer(int l) {
    return layers.isEmpty() ? LayerAttention.PLAIN : layers.get(l);
  }

  /** The keys a query of layer l may see: the causal rule, and its window or the model's. */
  AttentionMask mask(int l) {
    int own = layer(l).window();
    return new AttentionMask(causal, own > 0 ? own : window);
  }
}
