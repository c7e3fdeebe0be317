package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * Which layers' feed-forwards are mixtures of experts, and how tokens are routed to them
 * ({@link Experts}), as nomic-embed-text-v2-moe's config.json says.
 *
 * @param every layer i is a mixture when i % every == 1 ({@code moe_every_n_layers}, as
 *     nomic's code tests it: 1 makes none); 0: none
 * @param count X, the experts of such a layer ({@code num_experts})
 * @param topK the experts each token takes ({@code moe_top_k})
 * @param normalizeP the p of the p-norm a token's top weights are divided by
 *     ({@code moe_normalize_expert_weights}); 0: taken as they are
 */
public record ExpertLayers(int every, int count, int topK, double normalizeP)
    implements Serializable {
  /** Every layer dense. */
  public static final ExpertLayers NONE = new ExpertLayers(0, 0, 0, 0);

  public ExpertLayers {
    if (every < 0 || (every > 0 && (count < 1 || topK < 1 || topK > count))
        || !(normalizeP >= 0) || Double.isInfinite(normalizeP)) {
      throw new IllegalArgumentException("experts every " + every + " layers need 1 <= top k ("
          + topK + ") <= experts (" + count + ") and a p of at least 0, got " + normalizeP);
    }
  }

  /** Whether layer i's feed-forward is a mixture of experts. */
  public boolean at(int layer) {
    return every > 0 && layer % every == 1;
  }

  @Override
  public String toString() {
    return every == 0 ? "dense" : String.format("top %d of %d experts every %d layers%s", topK,
        count, every, normalizeP > 0 ? ", weights divided by their " + normalizeP + "-norm" : "");
  }
}
