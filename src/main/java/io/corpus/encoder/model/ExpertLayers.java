package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * Which layers' feed-forwards are mixtures of experts, and how tokens are routed to them
 * ({@link Experts}): none ({@link #NONE}), or every n-th layer as nomic-embed-text-v2-moe's
 * config.json says ({@link Every}).
 */
public sealed interface ExpertLayers extends Serializable
    permits ExpertLayers.None, ExpertLayers.Every {

  /** Every layer dense. */
  ExpertLayers NONE = new None();

  /** Whether layer i's feed-forward is a mixture of experts. */
  boolean at(int layer);

  /** Every layer dense. */
  record None() implements ExpertLayers {
    @Override
    public boolean at(int layer) {
      return false;
    }

    @Override
    public String toString() {
      return "dense";
    }
  }

  /**
   * Mixtures every n-th layer.
   *
   * @param every layer i is a mixture when i % every == 1 ({@code moe_every_n_layers}, as
   *     nomic's code tests it: 1 makes none)
   * @param count X, the experts of such a layer ({@code num_experts})
   * @param topK the experts each token takes ({@code moe_top_k})
   * @param weighting how a token's top weights are taken ({@code
   *     moe_normalize_expert_weights}): as routed, or divided by their p-norm
   */
  record Every(int every, int count, int topK, ExpertWeights weighting)
      implements ExpertLayers {
    public Every {
      if (every < 1 || count < 1 || topK < 1 || topK > count) {
        throw new IllegalArgumentException("experts every " + every + " layers need 1 <= top k ("
            + topK + ") <= experts (" + count + ")");
      }
    }

    @Override
    public boolean at(int layer) {
      return layer % every == 1;
    }

    @Override
    public String toString() {
      return String.format("top %d of %d experts every %d layers%s", topK, count, every,
          weighting instanceof ExpertWeights.PNorm ? ", weights " + weighting : "");
    }
  }
}
