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
 * @param layerNormEps eps of every norm
 * @param normFirst pre-norm layers (x + f(norm(x))) rather than post-norm (norm(x + f(x)))
 * @param finalNorm a norm after the last layer
 * @param projectionBias whether the attention's projections have biases
 * @param feedForwardBias whether the feed-forward's have
 * @param normBias whether the norms have a shift
 * @param layers how each layer attends, when layers differ; empty when all are plain
 * @param scoreBias a bias by distance every layer adds to its scores, or NONE
 * @param attention the heads' shape: the width split evenly, or KV heads, head width and score
 *     scale as the family states them
 * @param norm LayerNorm or RMSNorm
 * @param causal a decoder's attention: no query sees a later key
 * @param disentangled DeBERTa's position terms in every score, or NONE
 * @param positionTable the embedding layer adds the checkpoint's learned position table, when it
 *     has one (DeBERTa-v3's checkpoints keep a table its embeddings do not add)
 * @param experts which layers' feed-forwards are mixtures of experts, or NONE
 */
public record Architecture(Activation activation, double layerNormEps, boolean normFirst,
    boolean finalNorm, boolean projectionBias, boolean feedForwardBias, boolean normBias,
    List<LayerAttention> layers, ScoreBias scoreBias, AttentionHeads attention,
    NormKind norm, boolean causal, DisentangledPositions disentangled, boolean positionTable,
    ExpertLayers experts) implements Serializable {

  public Architecture {
    if (!(layerNormEps > 0) || Double.isInfinite(layerNormEps)) {
      throw new IllegalArgumentException("layer-norm-eps must be a positive number, got "
          + layerNormEps);
    }
    layers = List.copyOf(layers);
    if (activation == null || scoreBias == null || attention == null || norm == null
        || disentangled == null || experts == null) {
      throw new IllegalArgumentException("an architecture without a score bias, head shape, "
          + "norm kind, position terms or experts has ScoreBias.NONE, AttentionHeads.SPLIT, "
          + "NormKind.LAYER, DisentangledPositions.NONE, ExpertLayers.NONE");
    }
    if (scoreBias.any() && disentangled.any()) {
      throw new IllegalArgumentException("a score bias by distance and disentangled position "
          + "terms do not go together");
    }
  }

  /**
   * A bidirectional encoder's, to be told what differs by name: post-norm layers without a
   * final norm, biases on the projections, the feed-forward and the norms, every layer plain,
   * no score bias, heads splitting the width, LayerNorm.
   */
  public static Builder encoder(Activation activation, double layerNormEps) {
    return new Builder(activation, layerNormEps);
  }

  /** An {@link Architecture} said by name: {@code encoder(act, eps).preNorm().build()}. */
  public static final class Builder {
    private final Activation activation;
    private final double layerNormEps;
    private boolean normFirst;
    private boolean finalNorm;
    private boolean projectionBias = true;
    private boolean feedForwardBias = true;
    private boolean normBias = true;
    private List<LayerAttention> layers = List.of();
    private ScoreBias scoreBias = ScoreBias.NONE;
    private AttentionHeads attention = AttentionHeads.SPLIT;
    private NormKind norm = NormKind.LAYER;
    private boolean causal;
    private DisentangledPositions disentangled = DisentangledPositions.NONE;
    private boolean positionTable = true;
    private ExpertLayers experts = ExpertLayers.NONE;

    private Builder(Activation activation, double layerNormEps) {
      this.activation = activation;
      this.layerNormEps = layerNormEps;
    }

    /** Pre-norm layers, x + f(norm(x)), and a final norm after the last. */
    public Builder preNormWithFinalNorm() {
      normFirst = true;
      finalNorm = true;
      return this;
    }

    /** Pre-norm layers (when {@code first}), as a weights file's settings say. */
    public Builder normFirst(boolean first) {
      normFirst = first;
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

    public Builder feedForwardBias(boolean present) {
      feedForwardBias = present;
      return this;
    }

    public Builder normBias(boolean present) {
      normBias = present;
      return this;
    }

    /** How each layer attends, when layers differ. */
    public Builder layers(List<LayerAttention> perLayer) {
      layers = perLayer;
      return this;
    }

    public Builder scoreBias(ScoreBias bias) {
      scoreBias = bias;
      return this;
    }

    /** KV heads, head width and score scale. */
    public Builder attention(AttentionHeads shape) {
      attention = shape;
      return this;
    }

    /** RMSNorm in place of LayerNorm (and no norm shifts). */
    public Builder rmsNorm() {
      norm = NormKind.RMS;
      normBias = false;
      return this;
    }

    /** A decoder's attention: no query sees a later key (when {@code causal}). */
    public Builder causal(boolean causal) {
      this.causal = causal;
      return this;
    }

    /** DeBERTa's content-to-position and position-to-content terms. */
    public Builder disentangled(DisentangledPositions terms) {
      disentangled = terms;
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
      return new Architecture(activation, layerNormEps, normFirst, finalNorm, projectionBias,
          feedForwardBias, normBias, layers, scoreBias, attention, norm, causal, disentangled,
          positionTable, experts);
    }
  }
}
