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
      list.add(new LayerWeights(
          gaussian(random, 3 * width * width, 1 / Math.sqrt(width)),
          gaussian(random, 3 * width, 0.1),
          gaussian(random, width * width, 1 / Math.sqrt(width)),
          gaussian(random, width, 0.1),
          gaussian(random, ffn * width, 1 / Math.sqrt(width)),
          gaussian(random, ffn, 0.1),
          gaussian(random, width * ffn, 1 / Math.sqrt(ffn)),
          gaussian(random, width, 0.1),
          ones(random, width), gaussian(random, width, 0.1),
          ones(random, width), gaussian(random, width, 0.1)));
    }
    return new EncoderWeights(list,
        finalNorm ? ones(random, width) : null,
        finalNorm ? gaussian(random, width, 0.1) : null,
        maxPositions > 0 ? gaussian(random, maxPositions * width, 0.5) : null);
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
}
