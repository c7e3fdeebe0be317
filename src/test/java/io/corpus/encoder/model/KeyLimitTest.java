package io.corpus.encoder.model;

import static io.corpus.encoder.testing.Tolerances.assertVectorsClose;

import io.corpus.encoder.kernel.Activation;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A sequence whose queries attend to its first n tokens only ({@link TokenBatch#attendToFirst},
 * ColBERT's unattended query padding): its first n rows are what those n tokens alone give, in
 * every layer (they see nothing else), tiled or not; the later rows are computed, and tiled
 * equals untiled.
 */
class KeyLimitTest {
  private static final int WIDTH = 16;

  @ParameterizedTest
  @CsvSource({"false,0,4", "true,0,5", "false,3,4"})
  void theAttendedTokensAreWhatTheyGiveAloneAndTilesAgree(boolean causal, int window,
      int tile) {
    Random random = new Random(7 + tile);
    ModelSettings settings = new ModelSettings(4, Architecture.encoder(Activation.GELU, 1e-5)
        .causal(causal).build(), Window.ofSetting(window), PositionalEncoding.SINUSOIDAL);
    EncoderWeights weights = RandomModels.weights(random, 2, WIDTH, 32, false, 0);
    float[][] tokens = new float[21][WIDTH];
    for (float[] t : tokens) {
      for (int e = 0; e < WIDTH; e++) {
        t[e] = (float) random.nextGaussian();
      }
    }
    int attended = 9;
    float[] alone = run(new Encoder(settings, weights, 1000), Arrays.copyOf(tokens, attended),
        attended);
    float[] limited = run(new Encoder(settings, weights, 1000), tokens, attended);
    float[] tiled = run(new Encoder(settings, weights, tile), tokens, attended);
    float[] everything = run(new Encoder(settings, weights, 1000), tokens, tokens.length);
    assertVectorsClose(toRows(alone, attended), toRows(limited, attended), "the attended rows");
    assertVectorsClose(toRows(limited, tokens.length), toRows(tiled, tokens.length), "tiled");
    double apart = 0;
    for (int i = 0; i < attended * WIDTH; i++) {
      apart = Math.max(apart, Math.abs(limited[i] - everything[i]));
    }
    if (!causal && apart < 1e-3) {       // causal: the first rows never see the later ones
      throw new AssertionError("attending to every token changes nothing: the test cannot tell");
    }
  }

  /** The final states of one sequence whose queries attend to its first {@code keys} tokens. */
  private static float[] run(Encoder encoder, float[][] tokens, int keys) {
    TokenBatch batch = new TokenBatch(WIDTH, tokens.length);
    for (int t = 0; t < tokens.length; t++) {
      System.arraycopy(tokens[t], 0, batch.tokens(), batch.appendToken(t), WIDTH);
    }
    int b = batch.endSequence();
    if (keys < tokens.length) {
      batch.attendToFirst(b, keys);
    }
    encoder.forward(batch);
    return Arrays.copyOf(batch.tokens(), tokens.length * WIDTH);
  }

  private static double[][] toRows(float[] flat, int rows) {
    double[][] out = new double[rows][WIDTH];
    for (int r = 0; r < rows; r++) {
      for (int e = 0; e < WIDTH; e++) {
        out[r][e] = flat[r * WIDTH + e];
      }
    }
    return out;
  }
}
