package io.corpus.encoder.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random, well-conditioned encoder weights for samples, benchmarks and tests: weights ~ N(0, 1/in),
 * biases ~ N(0, 0.01), norm scales near 1.
 */
public final class RandomModels {
  private RandomModels() {}

  public static EncoderWeights weights(Random random, int layers, int width, int ffn,
      boolean finalNorm, int maxPositions) {
    List<LayerWeights> list = new ArrayList<>();
    for (int l = 0; l < layers; l++) {
      // Drawn in this order, which fixes every sample and golden made from a seed.
      float[] qkv = gaussian(random, 3 * width * width, 1 / Math.sqrt(width));
      float[] qkvBias = gaussian(random, 3 * width, 0.1);
      float[] out = gaussian(random, width * width, 1 / Math.sqrt(width));
      float[] outBias = gaussian(random, width, 0.1);
      float[] in = gaussian(random, ffn * width, 1 / Math.sqrt(width));
      float[] inBias = gaussian(random, ffn, 0.1);
      float[] down = gaussian(random, width * ffn, 1 / Math.sqrt(ffn));
      float[] downBias = gaussian(random, width, 0.1);
      float[] norm1 = ones(random, width);
      float[] norm1Shift = gaussian(random, width, 0.1);
      float[] norm2 = ones(random, width);
      float[] norm2Shift = gaussian(random, width, 0.1);
      list.add(LayerWeights.builder(width, ffn).attention(qkv, out)
          .attentionBiases(qkvBias, outBias).feedForward(in, down)
          .feedForwardBiases(inBias, downBias).norms(norm1, norm1Shift, norm2, norm2Shift)
          .build());
    }
    return new EncoderWeights(list,
        finalNorm ? new Norm.Affine(ones(random, width), gaussian(random, width, 0.1))
            : Norm.none(),
        gaussian(random, maxPositions * width, 0.5), new float[0]);
  }

  static float[] gaussian(Random random, int count, double scale) {
    float[] out = new float[count];
    for (int i = 0; i < count; i++) {
      out[i] = (float) (random.nextGaussian() * scale);
    }
    return out;
  }

  private static float[] ones(Random random, int count) {
    float[] out = gaussian(random, count, 0.1);
    for (int i = 0; i < count; i++) {
      out[i] += 1;
    }
    return out;
  }

  /** The plain feed-forward of a layer these models have. */
  public static FeedForward.Plain plain(LayerWeights layer) {
    return (FeedForward.Plain) layer.feedForward();
  }

  /** The scale and shift of a norm these models have. */
  public static Norm.Affine affine(Norm norm) {
    return (Norm.Affine) norm;
  }
}
