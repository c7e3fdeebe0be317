package io.corpus.encoder.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.kernel.ComputeThreads;
import io.corpus.encoder.testing.Bfloat16Kernels;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.weights.WeightsLoader;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The encoder gives the same vectors and statistics bit for bit on one thread and spread over
 * idle cores: a batch's product blocks, its short sequences and a long sequence's (head, query
 * tile) pairs are cut the same way however many threads take them.
 */
@Isolated
class EncoderThreadsTest {
  private static final ComputeThreads CORES = new ComputeThreads(3);

  /** Statistics by layer and head, as the encoder hands them out. */
  private static final class Statistics implements AttentionSink {
    final double[][] sums;
    final int heads;

    Statistics(int layers, int heads) {
      this.sums = new double[layers * heads][HeadStatistics.COUNT];
      this.heads = heads;
    }

    @Override
    public boolean wantsLayer(int layer) {
      return true;
    }

    @Override
    public boolean wantsWeights(int layer, int sequence) {
      return false;
    }

    @Override
    public void accept(int layer, int sequence, int head, float[] w, int offset, int length) {
      // short sequences: their maps would be summed here; the long ones are what is compared
    }

    @Override
    public void acceptStatistics(int layer, int sequence, int head, double[] s) {
      for (int k = 0; k < s.length; k++) {
        sums[layer * heads + head][k] += s[k];
      }
    }
  }

  static List<GoldenCase> cases() {
    return GoldenCase.all();
  }

  /** Every golden case's rows in one batch, tiles of 3 tokens: the same bits either way. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void goldenCasesGiveTheSameBitsOnOneThreadAndOnThree(GoldenCase c) {
    EncoderWeights weights = WeightsLoader.load(c.weights(), c.naming(), c.settings());
    int width = c.inputs().get(0).embeddings()[0].length;
    float[][] vectors = new float[2][];
    double[][][] statistics = new double[2][][];
    for (int run = 0; run < 2; run++) {
      TokenBatch batch = new TokenBatch(width, 64);
      for (GoldenCase.InputRow row : c.inputs()) {
        boolean[] real = row.valid();
        for (int i = 0; i < row.embeddings().length; i++) {
          if (real == null || real[i]) {
            int at = batch.appendToken(i);
            System.arraycopy(row.embeddings()[i], 0, batch.tokens(), at, width);
          }
        }
        batch.endSequence();
      }
      Statistics sink = new Statistics(weights.layerCount(), c.settings().heads());
      try (ComputeThreads.Task task = run == 0 ? ComputeThreads.SERIAL : CORES.join(1)) {
        new Encoder(c.settings(), weights, 3, task).forward(batch, sink);
      }
      vectors[run] = Arrays.copyOf(batch.tokens(), batch.tokenCount() * width);
      statistics[run] = sink.sums;
    }
    assertArrayEquals(vectors[0], vectors[1], c.toString());
    assertTrue(Arrays.deepEquals(statistics[0], statistics[1]), c + " statistics");
  }

  /**
   * 2,600 tokens (more than a product block of 2,048 rows): a long sequence in tiles of 16 and
   * short ones, with and without statistics; plain, causal with a window and a final norm, with
   * a gated feed-forward (its gate buffer per lane), with a mixture of experts in the second
   * layer (its routing buffers per lane), and in bfloat16 (each thread's own oneDNN tiles).
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"plain", "causal", "gated",
      "experts", "bfloat16"})
  void aBatchLargerThanAProductBlockGivesTheSameBitsOnOneThreadAndOnThree(String form) {
    if (form.equals("bfloat16")) {
      Bfloat16Kernels.assumeAvailable();
    }
    Random random = new Random(5);
    boolean causal = form.equals("causal");
    ModelSettings settings = new ModelSettings(4, Architecture.encoder(
        form.equals("gated") ? Activation.SILU : Activation.GELU, 1e-5).causal(causal)
        .gated(form.equals("gated"))
        .experts(form.equals("experts") ? new ExpertLayers.Every(2, 4, 2, ExpertWeights.ROUTED) : ExpertLayers.NONE)
        .build(),
        causal ? Window.within(40) : Window.GLOBAL, PositionalEncoding.SINUSOIDAL);
    EncoderWeights weights = form.equals("gated") ? gated(random)
        : form.equals("experts") ? experts(random)
        : form.equals("bfloat16") ? RandomModels.weights(random, 2, 16, 24, false, 0)
            .in(io.corpus.encoder.kernel.Precision.BFLOAT16)   // its long sequences' tiles too
        : RandomModels.weights(random, 2, 16, 24, causal, 0);
    float[] input = RandomModels.gaussian(random, 2600 * 16, 1);
    for (boolean withStatistics : new boolean[] {false, true}) {
      float[][] vectors = new float[2][];
      double[][][] statistics = new double[2][][];
      for (int run = 0; run < 2; run++) {
        TokenBatch batch = new TokenBatch(16, 2600);
        int at = 0;
        for (int length : new int[] {1700, 9, 300, 1, 590}) {
          for (int i = 0; i < length; i++, at++) {
            System.arraycopy(input, at * 16, batch.tokens(), batch.appendToken(i), 16);
          }
          batch.endSequence();
        }
        Statistics sink = withStatistics ? new Statistics(2, 4) : null;
        try (ComputeThreads.Task task = run == 0 ? ComputeThreads.SERIAL : CORES.join(1)) {
          new Encoder(settings, weights, 16, task).forward(batch,
              sink == null ? AttentionSink.NONE : sink);
        }
        vectors[run] = Arrays.copyOf(batch.tokens(), 2600 * 16);
        statistics[run] = sink == null ? null : sink.sums;
      }
      String what = form + (withStatistics ? ", statistics" : "");
      assertArrayEquals(vectors[0], vectors[1], what);
      assertTrue(Arrays.deepEquals(statistics[0], statistics[1]), what);
    }
  }

  /** Two layers of width 16 with a gated feed-forward of 24 (SwiGLU's form), no biases. */
  private static EncoderWeights gated(Random random) {
    List<LayerWeights> layers = new java.util.ArrayList<>();
    for (int l = 0; l < 2; l++) {
      float[] ones = new float[16];
      Arrays.fill(ones, 1f);
      layers.add(LayerWeights.builder(16, 24)
          .attention(RandomModels.gaussian(random, 3 * 16 * 16, 0.25),
              RandomModels.gaussian(random, 16 * 16, 0.25))
          .gatedFeedForward(RandomModels.gaussian(random, 24 * 16, 0.25),
              RandomModels.gaussian(random, 24 * 16, 0.25),
              RandomModels.gaussian(random, 16 * 24, 0.2))
          .norms(ones, ones.clone())
          .build());
    }
    return new EncoderWeights(layers, Norm.none());
  }

  /** A plain layer, then a layer of 4 experts of (24, 16) taking the top 2, width 16. */
  private static EncoderWeights experts(Random random) {
    EncoderWeights plain = RandomModels.weights(random, 2, 16, 24, false, 0);
    io.corpus.encoder.kernel.Matrix[] in = new io.corpus.encoder.kernel.Matrix[4];
    io.corpus.encoder.kernel.Matrix[] out = new io.corpus.encoder.kernel.Matrix[4];
    for (int e = 0; e < 4; e++) {
      in[e] = io.corpus.encoder.kernel.Matrix.of(RandomModels.gaussian(random, 24 * 16, 0.25),
          24, 16);
      out[e] = io.corpus.encoder.kernel.Matrix.of(RandomModels.gaussian(random, 16 * 24, 0.2),
          16, 24);
    }
    LayerWeights second = plain.layers().get(1);
    LayerWeights mixture = LayerWeights.builder(16, 24)
        .attention(second.inProjWeight(), second.outProjWeight())
        .attentionBiases(second.inProjBias(), second.outProjBias())
        .norms(RandomModels.affine(second.attentionNorm()).scale(),
            RandomModels.affine(second.attentionNorm()).shift(),
            RandomModels.affine(second.feedForwardNorm()).scale(),
            RandomModels.affine(second.feedForwardNorm()).shift())
        .experts(new Experts(RandomModels.gaussian(random, 4 * 16, 1), in, out,
            RandomModels.gaussian(random, 16, 0.1), 2, ExpertWeights.ROUTED))
        .build();
    return new EncoderWeights(List.of(plain.layers().get(0), mixture), Norm.none());
  }
}
