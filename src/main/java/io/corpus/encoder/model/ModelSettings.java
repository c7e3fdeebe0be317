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
    ScoreBias scoreBias) implements Serializable {

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
    if (scoreBias == null) {
      throw new IllegalArgumentException("a model without a score bias has ScoreBias.NONE");
    }
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
