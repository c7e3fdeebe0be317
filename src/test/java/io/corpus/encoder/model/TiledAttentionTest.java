package io.corpus.encoder.model;

import static io.corpus.encoder.testing.Tolerances.assertVectorsClose;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.testing.Bfloat16Kernels;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.PlainRunner;
import io.corpus.encoder.weights.WeightsLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Tiled attention (online softmax, used when maps are off and T exceeds the tile) against the
 * golden cases and the reference, with tiles small enough that every case spans several:
 * padding, causal and window masks included, and tiles the masks rule out skipped.
 */
class TiledAttentionTest {
  static List<GoldenCase> cases() {
    return GoldenCase.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void tiledEncoderMatchesPyTorch(GoldenCase c) {
    EncoderWeights weights = WeightsLoader.load(c.weights(), c.naming(), c.settings());
    for (int tile : new int[] {1, 3, 4}) {
      PlainRunner.Output[] out = PlainRunner.run(new Encoder(c.settings(), weights, tile),
          c.inputs(), 2, false);
      for (int r = 0; r < out.length; r++) {
        assertVectorsClose(c.expected().get(r).embeddings(), out[r].embeddings(),
            c + " tile " + tile + " " + c.expected().get(r).id());
      }
    }
  }

  /**
   * bfloat16 weights: a long sequence's tiles multiply in bfloat16 (Q, K, V and the softmax
   * numerators rounded), within 2 % of the same weights' float32 attention, and not equal to it
   * (the tiles did run in bfloat16); masks and windows as in float32.
   */
  @ParameterizedTest
  @CsvSource({"false,0", "true,9"})
  void bfloat16TilesStayWithinTheirRoundingOfFloat32Attention(boolean causal, int window) {
    Bfloat16Kernels.assumeAvailable();
    Random random = new Random(41 + window);
    ModelSettings settings = new ModelSettings(4, Architecture.encoder(Activation.GELU, 1e-5)
        .causal(causal).build(), Window.ofSetting(window), PositionalEncoding.SINUSOIDAL);
    EncoderWeights weights = RandomModels.weights(random, 2, 64, 96, false, 0)
        .in(Precision.BFLOAT16);
    List<GoldenCase.InputRow> rows = new ArrayList<>();
    for (int length : new int[] {70, 33, 17}) {
      float[][] x = new float[length][64];
      int[] mask = new int[length];
      for (int t = 0; t < length; t++) {
        for (int e = 0; e < 64; e++) {
          x[t][e] = (float) random.nextGaussian();
        }
        mask[t] = 1;
      }
      rows.add(new GoldenCase.InputRow("r" + length, x, mask));
    }
    PlainRunner.Output[] tiled = PlainRunner.run(new Encoder(settings, weights, 16), rows, 2,
        false);
    PlainRunner.Output[] untiled = PlainRunner.run(new Encoder(settings, weights, 1000), rows,
        2, false);
    double worst = 0;
    double scale = 0;
    for (int r = 0; r < rows.size(); r++) {
      double[][] a = tiled[r].embeddings();
      double[][] b = untiled[r].embeddings();
      for (int t = 0; t < a.length; t++) {
        for (int e = 0; e < a[t].length; e++) {
          worst = Math.max(worst, Math.abs(a[t][e] - b[t][e]));
          scale = Math.max(scale, Math.abs(b[t][e]));
        }
      }
    }
    System.out.printf("bfloat16 tiles against float32 attention: largest |Δ| %.2e of %.2f%n",
        worst, scale);
    assertTrue(worst > 0, "the tiles ran in bfloat16");
    assertTrue(worst < 0.02 * scale, "largest |Δ| " + worst);
  }

  @ParameterizedTest
  @CsvSource({"false,0,5", "true,0,8", "false,6,4", "true,9,16", "true,2,3"})
  void tiledMatchesUntiledAndReferenceOnLongSequences(boolean causal, int window, int tile) {
    Random random = new Random(tile * 31 + window);
    ModelSettings settings = new ModelSettings(4, Architecture.encoder(Activation.GELU, 1e-5)
        .causal(causal).build(), Window.ofSetting(window), PositionalEncoding.SINUSOIDAL);
    EncoderWeights weights = RandomModels.weights(random, 2, 16, 32, false, 0);
    List<GoldenCase.InputRow> rows = new ArrayList<>();
    for (int length : new int[] {70, 1, 33, 17}) {
      float[][] x = new float[length][16];
      int[] mask = new int[length];
      for (int t = 0; t < length; t++) {
        for (int e = 0; e < 16; e++) {
          x[t][e] = (float) random.nextGaussian();
        }
        mask[t] = t == 0 || random.nextInt(5) > 0 ? 1 : 0;
      }
      rows.add(new GoldenCase.InputRow("r" + length, x, mask));
    }
    PlainRunner.Output[] tiled = PlainRunner.run(new Encoder(settings, weights, tile), rows, 2,
        false);
    PlainRunner.Output[] untiled = PlainRunner.run(new Encoder(settings, weights, 1000), rows, 2,
        false);
    ReferenceEncoder reference = new ReferenceEncoder(settings, weights);
    for (int r = 0; r < rows.size(); r++) {
      assertVectorsClose(untiled[r].embeddings(), tiled[r].embeddings(), "untiled row " + r);
      assertVectorsClose(reference.encode(rows.get(r).embeddings(), rows.get(r).valid())
          .embeddings(), tiled[r].embeddings(), "reference row " + r);
    }
  }
}
