package io.corpus.encoder.model;

import static io.corpus.encoder.testing.Tolerances.assertMapClose;
import static io.corpus.encoder.testing.Tolerances.assertVectorsClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.PlainRunner;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fast batched encoder against the plain reference on random models and inputs the golden
 * cases do not cover: other widths and head counts, deep stacks, T = 1, masks in the middle of a
 * sequence, every mask combination.
 */
class EncoderVsReferenceTest {
  static Stream<Arguments> shapes() {
    return Stream.of(
        // layers, E, H, F, activation, normFirst, finalNorm, causal, window, positional, seed
        Arguments.of(1, 8, 1, 16, Activation.RELU, false, false, false, 0, PositionalEncoding.NONE, 1),
        Arguments.of(4, 30, 5, 20, Activation.GELU, true, true, false, 0, PositionalEncoding.SINUSOIDAL, 2),
        Arguments.of(2, 16, 8, 64, Activation.GELU_TANH, false, false, true, 0, PositionalEncoding.LEARNED, 3),
        Arguments.of(3, 12, 3, 12, Activation.RELU, true, false, true, 3, PositionalEncoding.NONE, 4),
        Arguments.of(2, 48, 6, 96, Activation.GELU, false, true, false, 1, PositionalEncoding.SINUSOIDAL, 5));
  }

  @ParameterizedTest
  @MethodSource("shapes")
  void fastEncoderMatchesReference(int layers, int width, int heads, int ffn, Activation activation,
      boolean normFirst, boolean finalNorm, boolean causal, int window,
      PositionalEncoding positional, int seed) {
    Random random = new Random(seed);
    ModelSettings settings = new ModelSettings(heads, Architecture.encoder(activation, 1e-5)
        .normFirst(normFirst).finalNorm(finalNorm).causal(causal).build(),
        Window.ofSetting(window), positional);
    EncoderWeights weights = RandomModels.weights(random, layers, width, ffn, finalNorm,
        positional == PositionalEncoding.LEARNED ? 40 : 0);
    List<GoldenCase.InputRow> rows = new ArrayList<>();
    int[] lengths = {1, 7, 1, 33, 12, 2};
    for (int r = 0; r < lengths.length; r++) {
      int t = lengths[r];
      float[][] x = new float[t][width];
      int[] mask = new int[t];
      for (int i = 0; i < t; i++) {
        for (int e = 0; e < width; e++) {
          x[i][e] = (float) random.nextGaussian();
        }
        // Padding anywhere (not only at the end), but never every token.
        mask[i] = i == 0 || random.nextInt(4) > 0 ? 1 : 0;
      }
      rows.add(new GoldenCase.InputRow("r" + r, x, r % 2 == 0 ? null : mask));
    }
    PlainRunner.Output[] fast = PlainRunner.run(settings, weights, rows, 4);
    ReferenceEncoder reference = new ReferenceEncoder(settings, weights);
    for (int r = 0; r < rows.size(); r++) {
      ReferenceEncoder.Result expected = reference.encode(rows.get(r).embeddings(),
          rows.get(r).valid());
      assertVectorsClose(expected.embeddings(), fast[r].embeddings(), "row " + r);
      for (int l = 0; l < layers; l++) {
        for (int h = 0; h < heads; h++) {
          assertMapClose(expected.attention()[l][h], fast[r].attention()[l][h],
              "row " + r + " layer " + l + " head " + h);
        }
      }
    }
  }

  /**
   * One batch of more tokens than the feed-forward does at a time: every block of rows, the
   * last partial one included, must land on its own rows.
   */
  @Test
  void batchLongerThanOneFeedForwardBlock() {
    Random random = new Random(6);
    int width = 8;
    ModelSettings settings = new ModelSettings(2, Architecture.encoder(Activation.GELU, 1e-5)
        .build(), Window.GLOBAL, PositionalEncoding.NONE);
    EncoderWeights weights = RandomModels.weights(random, 2, width, 16, false, 0);
    List<GoldenCase.InputRow> rows = randomRows(random, width, 60, 2 * Matrix.BLOCK_ROWS);
    int tokens = rows.stream().mapToInt(r -> r.embeddings().length).sum();
    Encoder encoder = new Encoder(settings, weights);
    PlainRunner.Output[] fast = PlainRunner.run(encoder, rows, rows.size(), false);
    ReferenceEncoder reference = new ReferenceEncoder(settings, weights);
    for (int r = 0; r < rows.size(); r++) {
      assertVectorsClose(reference.encode(rows.get(r).embeddings(), null).embeddings(),
          fast[r].embeddings(), "row " + r + " of " + rows.size() + " (" + tokens + " tokens)");
    }
  }

  /**
   * int8 quantizes each token alone, so a token's output cannot depend on its batch: a batch
   * of several int8 blocks (feed-forward and product) gives each row bit for bit what the row
   * gives alone, the last partial block included.
   */
  @Test
  void int8BatchOfManyBlocksEqualsEachRowAlone() {
    Random random = new Random(8);
    int width = 32;
    ModelSettings settings = new ModelSettings(2, Architecture.encoder(Activation.GELU, 1e-5)
        .build(), Window.GLOBAL, PositionalEncoding.NONE);
    EncoderWeights weights = RandomModels.weights(random, 2, width, 64, false, 0)
        .in(Precision.INT8);
    List<GoldenCase.InputRow> rows = randomRows(random, width, 40,
        2 * RandomModels.plain(weights.layers().get(0)).in().blockRows() + 7);
    int tokens = rows.stream().mapToInt(r -> r.embeddings().length).sum();
    Encoder encoder = new Encoder(settings, weights);
    PlainRunner.Output[] batched = PlainRunner.run(encoder, rows, rows.size(), false);
    for (int r = 0; r < rows.size(); r++) {
      PlainRunner.Output alone = PlainRunner.run(encoder, List.of(rows.get(r)), 1, false)[0];
      double[][] expected = alone.embeddings();
      for (int t = 0; t < expected.length; t++) {
        assertArrayEquals(expected[t], batched[r].embeddings()[t],
            "row " + r + " token " + t + " of " + rows.size() + " rows (" + tokens + " tokens)");
      }
    }
  }

  /** Rows of 1 to {@code longest} random tokens, until they hold more than {@code tokens}. */
  private static List<GoldenCase.InputRow> randomRows(Random random, int width, int longest,
      int tokens) {
    List<GoldenCase.InputRow> rows = new ArrayList<>();
    for (int total = 0; total <= tokens; ) {
      int t = 1 + random.nextInt(longest);
      float[][] x = new float[t][width];
      for (float[] token : x) {
        for (int e = 0; e < width; e++) {
          token[e] = (float) random.nextGaussian();
        }
      }
      rows.add(new GoldenCase.InputRow("r" + rows.size(), x, null));
      total += t;
    }
    return rows;
  }
}
