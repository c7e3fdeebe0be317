package io.corpus.encoder.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.kernel.Activation;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Head importance on random models equals the reference's (each ablation run from the
 * embeddings through every layer, in double), whether the H ablated copies of a layer run in one
 * batch, one at a time, or a few at a time: the states reused from the layers below, the
 * positions added once and the final norm applied once, wherever the layers resume.
 */
class HeadImportanceTest {
  @ParameterizedTest
  @CsvSource({"false, false, NONE, 1", "true, true, SINUSOIDAL, 2", "true, false, LEARNED, 3"})
  void measuredImportanceEqualsTheReferenceHowEverTheCopiesAreBatched(boolean normFirst,
      boolean finalNorm, PositionalEncoding positional, int seed) {
    Random random = new Random(seed);
    int layers = 3;
    int width = 16;
    int heads = 4;
    int t = 9;
    ModelSettings settings = new ModelSettings(heads, Architecture.encoder(Activation.GELU, 1e-5)
        .normFirst(normFirst).finalNorm(finalNorm).build(), Window.GLOBAL, positional);
    EncoderWeights weights = RandomModels.weights(random, layers, width, 32, finalNorm,
        positional == PositionalEncoding.LEARNED ? 16 : 0);
    float[][] input = new float[t][width];
    TokenBatch batch = new TokenBatch(width, t);
    for (int i = 0; i < t; i++) {
      int at = batch.appendToken(i);
      for (int e = 0; e < width; e++) {
        input[i][e] = (float) random.nextGaussian();
        batch.tokens()[at + e] = input[i][e];
      }
    }
    batch.endSequence();
    HeadImportance.Input copied = HeadImportance.Input.of(batch, 0);
    Encoder encoder = new Encoder(settings, weights);
    encoder.forward(batch);
    HeadImportance.PooledVector mean = (tokens, first, length) -> {
      float[] out = new float[width];
      for (int r = first; r < first + length; r++) {
        for (int e = 0; e < width; e++) {
          out[e] += tokens[r * width + e] / length;
        }
      }
      return out;
    };
    float[] pooled = mean.of(batch.tokens(), 0, t);
    double[] expected = new ReferenceEncoder(settings, weights).importance(input, states -> {
      double[] out = new double[width];
      for (double[] row : states) {
        for (int e = 0; e < width; e++) {
          out[e] += row[e] / states.length;
        }
      }
      return out;
    });
    double largest = java.util.Arrays.stream(expected).max().orElseThrow();
    assertTrue(largest > 1e-3, "some head matters: " + largest);
    for (int batchTokens : new int[] {4096, t, 2 * t + 1}) {
      double[] got = HeadImportance.measure(encoder, copied, pooled, mean, batchTokens);
      for (int at = 0; at < expected.length; at++) {
        assertEquals(expected[at], got[at], 1e-4 * largest, "batch of " + batchTokens
            + " tokens: layer " + at / heads + " head " + at % heads);
      }
    }
  }
}
