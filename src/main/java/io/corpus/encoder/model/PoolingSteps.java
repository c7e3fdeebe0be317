package io.corpus.encoder.model;

import java.io.Serializable;
import java.util.Arrays;

/**
 * The steps from a sequence's final states to its pooled vector, in the order
 * sentence-transformers' modules after the Transformer take them: NV-Embed's latent attention
 * on the tokens that are pooled, the pooling over the tokens after a prompt the folder leaves
 * out of it, the Dense modules, the Matryoshka cut, the L2 norm.
 *
 * @param pooling how the tokens become one vector
 * @param dimensions keep the pooled vector's first values only, before it is normalized (0 =
 *     all)
 * @param normalize scale the pooled vector to unit L2 norm
 */
public record PoolingSteps(Pooling pooling, int dimensions, boolean normalize)
    implements Serializable {

  /**
   * The pooled vector of the {@code length} final states from row {@code first} of
   * {@code tokens} (width E), the first {@code unpooled} of them a prompt the pooling leaves
   * out (never all of them; the first token's pooling keeps it), through {@code model}'s latent
   * attention and Dense modules.
   */
  public float[] of(EncoderModel model, float[] tokens, int first, int length, int width,
      int unpooled) {
    int skip = pooling == Pooling.FIRST ? 0 : Math.max(0, Math.min(unpooled, length - 1));
    float[] pooled = model.beforePooling() instanceof LatentAttention latent
        ? pooling.pool(latent.apply(tokens, first + skip, length - skip), 0, length - skip, width)
        : pooling.pool(tokens, first + skip, length - skip, width);
    for (DenseLayer dense : model.dense()) {
      pooled = dense.apply(pooled);
    }
    if (dimensions > 0 && dimensions < pooled.length) {
      pooled = Arrays.copyOf(pooled, dimensions);
    }
    if (normalize) {
      Pooling.normalize(pooled);
    }
    return pooled;
  }
}
