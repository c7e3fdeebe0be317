package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Activation;
import java.io.Serializable;
import java.util.List;

/**
 * How a model's layers compute, said once: a family reads it from its config.json (built by
 * name, {@code Architecture.encoder(act, eps).preNormWithFinalNorm().rmsNorm().build()}), a
 * weights file from the job's model settings; {@link ModelSettings} adds the number of heads and
 * what only a weights file can ask for.
 *
 * @param activation the feed-forward's activation
 * @param norms the norms' kind, eps and placement, and whether a final norm follows
 * @param projectionBias whether the attention's projections have biases
 * @param feedForwardBias whether the feed-forward's have
 * @param gated whether a layer's feed-forward is gated, out(act(x·aᵀ) ⊙ x·gᵀ) (GLU: SwiGLU,
 *     GeGLU), rather than plain, out(act(x·inᵀ)); a layer of experts is neither
 * @param layers how each layer attends, when layers differ; empty when all are plain
 * @param positionTerms what every score adds by where its key stands from its query: a bias by
 *     distance, DeBERTa's disentangled terms, or NONE
 * @param attention the heads' shape: the width split evenly, or KV heads, head width and score
 *     scale as the family states them
 * @param causal a decoder's attention: no query sees a later key
 * @param positionTable the embedding layer adds the checkpoint's learned position table, when it
 *     has one (DeBERTa-v3's checkpoints keep a table its embeddings do not add)
 * @param experts which layers' feed-forwards are mixtures of experts, or NONE
 */
public record Architecture(Activation activation, Norms norms, boolean projectionBias,
    boolean feedForwardBias, boolean gated, List<LayerAttention> layers,
    PositionTerms positionTerms, AttentionHeads attention, boolean causal, boolean positionTable,
    ExpertLayers experts) implements Serializable {

  public Architecture {
    layers = List.copyOf(layers);
    if (activation == null || norms == null || positionTerms == null || attention == null
        || experts == null) {
      throw new IllegalArgumentException("an architecture without position terms, head shape "
          + "or experts has PositionTerms.NONE, AttentionHeads.SPLIT, ExpertLayers.NONE");
    }
  }

  /**
   * A bidirectional encoder's, to be told what differs by name: post-norm layers without a
   * final norm, biases on the projections, the feed-forward and the norms, plain feed-forwards,
   * every layer attending alike, no position terms, heads splitting the width, LayerNorm.
   */
  public static Builder encoder(Activation activation, double layerNormEps) {
    return new Builder(activation, layerNormEps);
  }

  /** An {@link Architecture} said by name: {@code encoder(act, eps).preNorm().build()}. */
  public static final class Builder {
    private final Activation activation;
    private final double layerNormEps;
    private Norms.Placement placement = Norms.Placement.POST;
    private boolean finalNorm;
    private boolean projectionBias = true;
    private boolean feedForwardBias = true;
    private boolean gated;
    private boolean normShift = true;
    private List<LayerAttention> layers = List.of();
    private PositionTerms positionTerms = PositionTerms.NONE;
    private AttentionHeads attention = AttentionHeads.SPLIT;
    private NormKind normKind = NormKind.LAYER;
    private boolean causal;
    private boolean positionTable = true;
    private ExpertLayers experts = ExpertLayers.NONE;

    private Builder(Activation activation, double layerNormEps) {
      this.activation = activation;
      this.layerNormEps = layerNormEps;
    }

    /** Pre-norm layers, x + f(norm(x)), and a final norm after the last. */
    public Builder preNormWithFinalNorm() {
      placement = Norms.Placement.PRE;
      finalNorm = true;
      return this;
    }

    /** Pre-norm layers (when {@code first}), as a weights file's settings say. */
    public Builder normFirst(boolean first) {
      placement = first ? Norms.Placement.PRE : Norms.Placement.POST;
      return this;
    }

    /** Pre-norm layers that norm each sublayer's output again before adding it (Gemma3). */
    public Builder sandwichNorms() {
      placement = Norms.Placement.SANDWICH;
      return this;
    }

    /** A norm after the last layer (when {@code present}). */
    public Builder finalNorm(boolean present) {
      finalNorm = present;
      return this;
    }

    public Builder projectionBias(boolean present) {
      projectionBias = present;
      return this;
    }

    /** Gated feed-forwards (GLU), out(act(x·aᵀ) ⊙ x·gᵀ), when {@code gated}. */
    public Builder gated(boolean gated) {
      this.gated = gated;
      return this;
    }

    public Builder feedForwardBias(boolean present) {
      feedForwardBias = present;
      return this;
    }

    public Builder normShift(boolean present) {
      normShift = present;
      return this;
    }

    /** How each layer attends, when layers differ. */
    public Builder layers(List<LayerAttention> perLayer) {
      layers = perLayer;
      return this;
    }

    /** A bias by distance every layer adds to its scores. */
    public Builder scoreBias(ScoreBias bias) {
      positionTerms = bias;
      return this;
    }

    /** KV heads, head width and score scale. */
    public Builder attention(AttentionHeads shape) {
      attention = shape;
      return this;
    }

    /** RMSNorm in place of LayerNorm (and no norm shifts). */
    public Builder rmsNorm() {
      normKind = NormKind.RMS;
      normShift = false;
      return this;
    }

    /** A decoder's attention: no query sees a later key (when {@code causal}). */
    public Builder causal(boolean causal) {
      this.causal = causal;
      return this;
    }

    /** DeBERTa's content-to-position and position-to-content terms. */
    public Builder disentangled(DisentangledPositions terms) {
      positionTerms = terms;
      return this;
    }

    /** Whether the embeddings add a learned position table (when {@code added}). */
    public Builder positionTable(boolean added) {
      positionTable = added;
      return this;
    }

    /** Mixtures of experts in place of some layers' feed-forwards. */
    public Builder experts(ExpertLayers layers) {
      experts = layers;
      return this;
    }

    public Architecture build() {
      return new Architecture(activation,
          new Norms(normKind, layerNormEps, placement, finalNorm, normShift), projectionBias,
          feedForwardBias, gated, layers, positionTerms, attention, causal, positionTable, experts);
    }
  }
}
