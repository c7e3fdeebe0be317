package io.corpus.encoder.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.testing.MapAnalytics;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Statistics of sequences whose maps are not kept, gathered during the tiled online softmax (no
 * T × T map), equal those of the reference's maps and of the full path's, to 1e-5 relative:
 * padding (positions with gaps), causal and window masks, tiles the masks rule out, a key limit,
 * tiles of one token and tiles larger than the sequence.
 */
class TiledStatisticsTest {
  /** Collects the statistics either way the encoder hands them out, by layer and head. */
  private static final class Sums implements AttentionSink {
    final boolean weights;
    final double[][] sums;
    final int heads;
    final float[] positions;

    Sums(boolean weights, int layers, int heads, float[] positions) {
      this.weights = weights;
      this.sums = new double[layers * heads][HeadStatistics.COUNT];
      this.heads = heads;
      this.positions = positions;
    }

    @Override
    public boolean wantsLayer(int layer) {
      return true;
    }

    @Override
    public boolean wantsWeights(int layer, int sequence) {
      return weights;
    }

    @Override
    public void accept(int layer, int sequence, int head, float[] w, int offset, int length) {
      HeadStatistics.addMap(w, offset, length, positions, sums[layer * heads + head], 0);
    }

    @Override
    public void acceptStatistics(int layer, int sequence, int head, double[] s) {
      for (int k = 0; k < s.length; k++) {
        sums[layer * heads + head][k] += s[k];
      }
    }
  }

  @ParameterizedTest
  @CsvSource({"false, 0, 4, 0", "true, 0, 5, 0", "false, 6, 3, 0", "true, 9, 1, 0",
      "false, 0, 64, 0", "false, 0, 4, 11", "true, 3, 7, 20"})
  void tiledStatisticsEqualTheMapsStatistics(boolean causal, int window, int tile, int keys) {
    Random random = new Random(tile * 131 + window + keys);
    int layers = 2;
    int heads = 4;
    int width = 16;
    ModelSettings settings = new ModelSettings(heads, Architecture.encoder(Activation.GELU, 1e-5)
        .causal(causal).build(), Window.ofSetting(window), PositionalEncoding.SINUSOIDAL);
    EncoderWeights weights = RandomModels.weights(random, layers, width, 32, false, 0);
    int padded = 41;
    float[][] x = new float[padded][width];
    boolean[] real = new boolean[padded];
    for (int i = 0; i < padded; i++) {
      for (int e = 0; e < width; e++) {
        x[i][e] = (float) random.nextGaussian();
      }
      real[i] = i == 0 || random.nextInt(5) > 0;
    }
    int t = 0;
    for (boolean r : real) {
      t += r ? 1 : 0;
    }
    float[] positions = new float[t];
    double[][] tiled = run(settings, weights, x, real, tile, keys, false, positions);
    double[][] full = run(settings, weights, x, real, 1000, keys, true, positions);
    double[][][][] maps = keys > 0 ? null
        : new ReferenceEncoder(settings, weights).encode(x, real).attention();
    int checked = 0;
    for (int m = 0; m < layers * heads; m++) {
      double[] expected = maps == null ? full[m]
          : MapAnalytics.statSums(maps[m / heads][m % heads], real);
      for (int s = 0; s < HeadStatistics.COUNT; s++) {
        String what = "layer " + m / heads + " head " + m % heads + " "
            + HeadStatistics.Stat.values()[s].column();
        assertEquals(expected[s], tiled[m][s], 1e-5 * Math.max(1, Math.abs(expected[s])), what);
        assertEquals(full[m][s], tiled[m][s], 1e-5 * Math.max(1, Math.abs(full[m][s])), what);
        checked += expected[s] != 0 ? 1 : 0;
      }
    }
    assertTrue(checked > layers * heads * 4, "most statistics are not 0: " + checked);
  }

  static java.util.List<io.corpus.encoder.testing.GoldenCase> cases() {
    return io.corpus.encoder.testing.GoldenCase.all();
  }

  /**
   * Every golden case (PyTorch's families of masks, positions and score terms), a sequence at a
   * time in tiles of 3 tokens: the tiled statistics equal the full path's to 1e-5 relative.
   */
  @ParameterizedTest(name = "{0}")
  @org.junit.jupiter.params.provider.MethodSource("cases")
  void tiledStatisticsEqualTheFullPathsOnTheGoldenCases(io.corpus.encoder.testing.GoldenCase c) {
    EncoderWeights weights = io.corpus.encoder.weights.WeightsLoader.load(c.weights(),
        c.naming(), c.settings());
    for (io.corpus.encoder.testing.GoldenCase.InputRow row : c.inputs()) {
      boolean[] real = row.valid() == null ? null : row.valid();
      if (real == null) {
        real = new boolean[row.embeddings().length];
        java.util.Arrays.fill(real, true);
      }
      int t = 0;
      for (boolean r : real) {
        t += r ? 1 : 0;
      }
      float[] positions = new float[t];
      double[][] tiled = run(c.settings(), weights, row.embeddings(), real, 3, 0, false,
          positions);
      double[][] full = run(c.settings(), weights, row.embeddings(), real, 1000, 0, true,
          positions);
      for (int m = 0; m < tiled.length; m++) {
        for (int s = 0; s < HeadStatistics.COUNT; s++) {
          assertEquals(full[m][s], tiled[m][s], 1e-5 * Math.max(1, Math.abs(full[m][s])),
              c + " " + row.id() + " map " + m + " " + HeadStatistics.Stat.values()[s].column());
        }
      }
    }
  }

  /** Gathering the statistics leaves the vectors as they are without them, bit for bit. */
  @ParameterizedTest
  @CsvSource({"false, 0, 4", "true, 5, 7"})
  void gatheringStatisticsLeavesTheVectorsAlone(boolean causal, int window, int tile) {
    Random random = new Random(7);
    ModelSettings settings = new ModelSettings(4, Architecture.encoder(Activation.GELU, 1e-5)
        .causal(causal).build(), Window.ofSetting(window), PositionalEncoding.SINUSOIDAL);
    EncoderWeights weights = RandomModels.weights(random, 2, 16, 32, false, 0);
    float[][] vectors = new float[2][];
    for (int run = 0; run < 2; run++) {
      TokenBatch batch = new TokenBatch(16, 37);
      Random input = new Random(11);
      float[] positions = new float[37];
      for (int i = 0; i < 37; i++) {
        int at = batch.appendToken(i);
        positions[i] = i;
        for (int e = 0; e < 16; e++) {
          batch.tokens()[at + e] = (float) input.nextGaussian();
        }
      }
      batch.endSequence();
      new Encoder(settings, weights, tile).forward(batch,
          run == 0 ? AttentionSink.NONE : new Sums(false, 2, 4, positions));
      vectors[run] = java.util.Arrays.copyOf(batch.tokens(), 37 * 16);
    }
    org.junit.jupiter.api.Assertions.assertArrayEquals(vectors[0], vectors[1]);
  }

  /** The statistics sums by layer and head of the encoder with this tile, tiled or full. */
  private static double[][] run(ModelSettings settings, EncoderWeights weights, float[][] x,
      boolean[] real, int tile, int keys, boolean full, float[] positions) {
    int width = x[0].length;
    TokenBatch batch = new TokenBatch(width, x.length);
    int n = 0;
    for (int i = 0; i < x.length; i++) {
      if (real[i]) {
        int at = batch.appendToken(i);
        System.arraycopy(x[i], 0, batch.tokens(), at, width);
        positions[n++] = i;
      }
    }
    int b = batch.endSequence();
    if (keys > 0) {
      batch.attendToFirst(b, keys);
    }
    Sums sums = new Sums(full, weights.layerCount(), settings.heads(), positions);
    new Encoder(settings, weights, tile).forward(batch, sums);
    return sums.sums;
  }
}
