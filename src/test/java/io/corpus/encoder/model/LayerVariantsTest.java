package io.corpus.encoder.model;

import static io.corpus.encoder.testing.Tolerances.assertMapClose;
import static io.corpus.encoder.testing.Tolerances.assertVectorsClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.PlainRunner;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Layers that differ from BERT's, as ModernBERT's do, through the fast encoder against the plain
 * reference: rotary positions with a base per layer, sliding windows on some layers and the
 * whole sequence on others, a gated feed-forward, a first layer without a norm before attention,
 * a final norm. With maps (whole score matrices) and without (tiles of 4 tokens, so the window
 * skips tiles), in padded batches.
 */
class LayerVariantsTest {
  private static final int WIDTH = 24;
  private static final int HEADS = 4;
  private static final int FFN = 20;
  private static final List<LayerAttention> LAYERS = List.of(
      new LayerAttention(Window.GLOBAL, 160000), new LayerAttention(Window.within(3), 10000),
      new LayerAttention(Window.within(2), 10000), new LayerAttention(Window.GLOBAL, 500));

  @Test
  void modernLayersMatchTheReference() {
    Random random = new Random(11);
    ModelSettings settings = new ModelSettings(HEADS, Architecture.encoder(Activation.GELU, 1e-5)
        .preNormWithFinalNorm().gated(true).layers(LAYERS).build(), Window.GLOBAL,
        PositionalEncoding.NONE);
    EncoderWeights weights = modernWeights(random);
    ModelSettings plain = new ModelSettings(HEADS, Architecture.encoder(Activation.GELU, 1e-5)
        .preNormWithFinalNorm().layers(LAYERS).build(), Window.GLOBAL, PositionalEncoding.NONE);
    assertEquals("layer 0's feed-forward is gated where the model's are plain",
        assertThrows(IllegalArgumentException.class, () -> new Encoder(plain, weights))
            .getMessage());
    List<GoldenCase.InputRow> rows = rows(random, new int[] {1, 9, 23, 4, 17, 30});
    ReferenceEncoder reference = new ReferenceEncoder(settings, weights);
    PlainRunner.Output[] withMaps = PlainRunner.run(settings, weights, rows, 3);
    PlainRunner.Output[] tiled = PlainRunner.run(new Encoder(settings, weights, 4), rows, 4,
        false);
    for (int r = 0; r < rows.size(); r++) {
      ReferenceEncoder.Result expected = reference.encode(rows.get(r).embeddings(),
          rows.get(r).valid());
      assertVectorsClose(expected.embeddings(), withMaps[r].embeddings(), "row " + r);
      assertVectorsClose(expected.embeddings(), tiled[r].embeddings(), "tiled row " + r);
      for (int l = 0; l < LAYERS.size(); l++) {
        for (int h = 0; h < HEADS; h++) {
          assertMapClose(expected.attention()[l][h], withMaps[r].attention()[l][h],
              "row " + r + " layer " + l + " head " + h);
        }
      }
    }
    double[][] far = reference.encode(rows.get(5).embeddings(), null).attention()[1][0];
    assertTrue(far[20][10] == 0 && far[20][17] > 0, "layer 1 sees 3 positions either side");
  }

  /**
   * Score biases by distance, MPNet's learned relative buckets (12 buckets ending at distance 20,
   * so sequences of 30 reach the log-spaced and the last bucket) and ALiBi, and rotary positions
   * on part of each head or on neighbouring pairs: the fast encoder, whole and in tiles of 4,
   * equals the reference, maps included.
   */
  @Test
  void scoreBiasesAndRotaryFormsMatchTheReference() {
    Random random = new Random(13);
    float[] table = RandomModels.gaussian(random, 12 * HEADS, 2.0);
    for (ModelSettings settings : List.of(
        postNorm(ScoreBias.relativeBuckets(12, 20), LayerAttention.PLAIN),
        postNorm(ScoreBias.alibi(), LayerAttention.PLAIN),
        postNorm(PositionTerms.NONE,
            new LayerAttention(Window.GLOBAL, new RotaryPositions.Rotated(1000, 4.0 / 6, false))),
        postNorm(PositionTerms.NONE,
            new LayerAttention(Window.within(2), new RotaryPositions.Rotated(500, 1, true))))) {
      EncoderWeights plain = modernWeights(random);
      EncoderWeights weights = new EncoderWeights(plain.layers(), Norm.none(), new float[0],
          settings.architecture().positionTerms() instanceof ScoreBias bias
              && bias.kind() == ScoreBias.Kind.RELATIVE_BUCKETS ? table : new float[0]);
      List<GoldenCase.InputRow> rows = rows(random, new int[] {1, 9, 30, 4, 17, 30});
      ReferenceEncoder reference = new ReferenceEncoder(settings, weights);
      PlainRunner.Output[] withMaps = PlainRunner.run(settings, weights, rows, 3);
      PlainRunner.Output[] tiled = PlainRunner.run(new Encoder(settings, weights, 4), rows, 4,
          false);
      for (int r = 0; r < rows.size(); r++) {
        ReferenceEncoder.Result expected = reference.encode(rows.get(r).embeddings(),
            rows.get(r).valid());
        String what = settings.architecture().positionTerms() + " " + settings.layer(0) + " row "
            + r;
        assertVectorsClose(expected.embeddings(), withMaps[r].embeddings(), what);
        assertVectorsClose(expected.embeddings(), tiled[r].embeddings(), "tiled " + what);
        for (int h = 0; h < HEADS; h++) {
          assertMapClose(expected.attention()[0][h], withMaps[r].attention()[0][h],
              what + " head " + h);
        }
      }
    }
  }

  /**
   * Decoder-style layers: grouped-query attention (4 query heads reading 2 KV heads), heads of 8
   * values in a width of 24 (H·D ≠ E), RMS norms everywhere, an RMS norm on each head's q and k
   * before rotary positions, a score scale of the model's own, causal attention, a gated SiLU
   * feed-forward without biases; and with Gemma3's norms of each sublayer's output before the
   * residual: whole, in tiles of 4 and with maps, against the reference.
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void groupedQueryHeadsRmsNormsAndQueryKeyNormsMatchTheReference(boolean postNorms) {
    Random random = new Random(14);
    int heads = 4;
    int kvHeads = 2;
    int d = 8;
    int qkvWidth = (heads + 2 * kvHeads) * d;
    List<LayerWeights> layers = new ArrayList<>();
    for (int l = 0; l < 3; l++) {
      float[] qkv = RandomModels.gaussian(random, qkvWidth * WIDTH, 1.6 / Math.sqrt(WIDTH));
      float[] out = RandomModels.gaussian(random, WIDTH * heads * d, 1 / Math.sqrt(heads * d));
      float[] in = RandomModels.gaussian(random, FFN * WIDTH, 1 / Math.sqrt(WIDTH));
      float[] down = RandomModels.gaussian(random, WIDTH * FFN, 1 / Math.sqrt(FFN));
      float[] norm1 = near1(random, WIDTH);
      float[] norm2 = near1(random, WIDTH);
      float[] linear = RandomModels.gaussian(random, FFN * WIDTH, 1 / Math.sqrt(WIDTH));
      LayerWeights.Builder layer = LayerWeights.builder(WIDTH, FFN).attention(qkv, out)
          .gatedFeedForward(in, linear, down).norms(norm1, norm2)
          .queryKeyNorms(near1(random, d), near1(random, d));
      if (postNorms) {
        layer.postNorms(near1(random, WIDTH), near1(random, WIDTH));
      }
      layers.add(layer.build());
    }
    EncoderWeights weights = new EncoderWeights(layers,
        new Norm.Affine(near1(random, WIDTH), new float[WIDTH]));
    List<LayerAttention> attention = List.of(new LayerAttention(Window.GLOBAL, 10000),
        new LayerAttention(Window.within(3), 10000), new LayerAttention(Window.GLOBAL, 1000000));
    Architecture.Builder spec = Architecture.encoder(Activation.SILU, 1e-6)
        .preNormWithFinalNorm().gated(true).rmsNorm().causal(true).layers(attention)
        .attention(new AttentionHeads.Shaped(kvHeads, d, 0.2));
    ModelSettings settings = new ModelSettings(heads,
        (postNorms ? spec.sandwichNorms() : spec).build(), Window.GLOBAL, PositionalEncoding.NONE);
    ModelSettings otherNorms = new ModelSettings(heads,
        (postNorms ? spec.normFirst(true) : spec.sandwichNorms()).build(), Window.GLOBAL,
        PositionalEncoding.NONE);
    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
        () -> new Encoder(otherNorms, weights));
    assertEquals("layer 0 " + (postNorms ? "has norms" : "lacks the norms") + " of its "
        + "attention's and feed-forward's outputs, which " + (postNorms ? "PRE" : "SANDWICH")
        + " norms " + (postNorms ? "do not have" : "need"), refused.getMessage());
    List<GoldenCase.InputRow> rows = rows(random, new int[] {1, 9, 23, 4, 17, 30});
    ReferenceEncoder reference = new ReferenceEncoder(settings, weights);
    PlainRunner.Output[] withMaps = PlainRunner.run(settings, weights, rows, 3);
    PlainRunner.Output[] tiled = PlainRunner.run(new Encoder(settings, weights, 4), rows, 4,
        false);
    for (int r = 0; r < rows.size(); r++) {
      ReferenceEncoder.Result expected = reference.encode(rows.get(r).embeddings(),
          rows.get(r).valid());
      assertVectorsClose(expected.embeddings(), withMaps[r].embeddings(), "row " + r);
      assertVectorsClose(expected.embeddings(), tiled[r].embeddings(), "tiled row " + r);
      for (int l = 0; l < attention.size(); l++) {
        for (int h = 0; h < heads; h++) {
          assertMapClose(expected.attention()[l][h], withMaps[r].attention()[l][h],
              "row " + r + " layer " + l + " head " + h);
        }
      }
    }
    double[][] map = reference.encode(rows.get(5).embeddings(), null).attention()[0][0];
    assertTrue(map[3][4] == 0 && map[4][3] > 0, "causal: a query sees no later key");
  }

  private static float[] near1(Random random, int count) {
    float[] out = RandomModels.gaussian(random, count, 0.1);
    for (int i = 0; i < count; i++) {
      out[i] += 1;
    }
    return out;
  }

  /**
   * MPNet's buckets at their edges, as PyTorch computes them in float32 (32 buckets, distance
   * 128: keys after the query from 16, distances 0-7 exact, then log-spaced, 15 at most), and
   * ALiBi's slopes for 8 heads and for 12 (a power of two, then every other slope of twice it).
   */
  @Test
  void bucketsAndSlopesFallWhereTheFamiliesPutThem() {
    ScoreBias mpnet = ScoreBias.relativeBuckets(32, 128);
    int[][] expected = {{0, 0}, {-1, 1}, {-7, 7}, {-8, 8}, {-11, 8}, {-12, 9}, {-16, 10},
        {-22, 10}, {-23, 11}, {-32, 12}, {-64, 14}, {-90, 14}, {-91, 15}, {-500, 15}, {1, 17},
        {8, 24}, {16, 26}, {128, 31}};
    for (int[] e : expected) {
      assertEquals(e[1], mpnet.bucket(e[0]), "bucket of key − query = " + e[0]);
    }
    List<Integer> changes = new ArrayList<>();     // where PyTorch's bucket differs from r − 1's
    for (int r = -599; r < 600; r++) {
      if (mpnet.bucket(r) != mpnet.bucket(r - 1)) {
        changes.add(r);
      }
    }
    assertEquals(List.of(-90, -63, -45, -31, -22, -15, -11, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2,
        3, 4, 5, 6, 7, 8, 12, 16, 23, 32, 46, 64, 91), changes);
    assertEquals(0.5, ScoreBias.alibiSlope(0, 8), 1e-15);
    assertEquals(1.0 / 256, ScoreBias.alibiSlope(7, 8), 1e-15);
    assertEquals(Math.pow(2, -1), ScoreBias.alibiSlope(0, 12), 1e-15);
    assertEquals(Math.pow(2, -0.5), ScoreBias.alibiSlope(8, 12), 1e-15);
    assertEquals(Math.pow(2, -3.5), ScoreBias.alibiSlope(11, 12), 1e-15);
  }

  private static ModelSettings postNorm(PositionTerms terms, LayerAttention attention) {
    List<LayerAttention> layers = new ArrayList<>();
    for (int l = 0; l < LAYERS.size(); l++) {
      layers.add(attention);
    }
    Architecture.Builder spec = Architecture.encoder(Activation.GELU, 1e-5).normFirst(true)
        .gated(true).layers(layers);
    if (terms instanceof ScoreBias bias) {
      spec.scoreBias(bias);
    }
    return new ModelSettings(HEADS, spec.build(), Window.GLOBAL, PositionalEncoding.NONE);
  }

  /** Rotary positions make attention depend on where tokens stand: moved, the output changes. */
  @Test
  void rotaryPositionsReachTheOutput() {
    Random random = new Random(12);
    ModelSettings settings = new ModelSettings(HEADS, Architecture.encoder(Activation.GELU, 1e-5)
        .preNormWithFinalNorm().gated(true)
        .layers(List.of(new LayerAttention(Window.GLOBAL, 10000))).build(),
        Window.GLOBAL, PositionalEncoding.NONE);
    EncoderWeights weights = new EncoderWeights(modernWeights(random).layers().subList(1, 2),
        new Norm.Affine(RandomModels.gaussian(random, WIDTH, 0.1),
            RandomModels.gaussian(random, WIDTH, 0.1)));
    List<GoldenCase.InputRow> rows = rows(random, new int[] {6});
    float[][] x = rows.get(0).embeddings();
    float[][] swapped = {x[1], x[0], x[2], x[3], x[4], x[5]};
    ReferenceEncoder reference = new ReferenceEncoder(settings, weights);
    double[][] a = reference.encode(x, null).embeddings();
    double[][] b = reference.encode(swapped, null).embeddings();
    double change = 0;
    for (int e = 0; e < WIDTH; e++) {
      change += Math.abs(a[5][e] - b[5][e]);
    }
    assertTrue(change > 1e-3, "token 5's output ignores the order of tokens 0 and 1: " + change);
  }

  private static EncoderWeights modernWeights(Random random) {
    EncoderWeights plain = RandomModels.weights(random, LAYERS.size(), WIDTH, FFN, true, 0);
    List<LayerWeights> layers = new ArrayList<>();
    for (int l = 0; l < LAYERS.size(); l++) {
      LayerWeights w = plain.layers().get(l);
      boolean attentionNorm = l > 0;
      layers.add(LayerWeights.builder(WIDTH, FFN)
          .attention(scaled(w.inProjWeight().floats(), 1.6f), w.outProjWeight().floats())
          .attentionBiases(w.inProjBias(), w.outProjBias())
          .gatedFeedForward(RandomModels.plain(w).in().floats(),
              RandomModels.gaussian(random, FFN * WIDTH, 1 / Math.sqrt(WIDTH)),
              RandomModels.plain(w).out().floats())
          .feedForwardBiases(RandomModels.plain(w).inBias(), RandomModels.plain(w).outBias())
          .gateBias(RandomModels.gaussian(random, FFN, 0.1))
          .norms(attentionNorm ? w.attentionNorm() : Norm.none(), w.feedForwardNorm())
          .build());
    }
    return new EncoderWeights(layers, plain.finalNorm());
  }

  /** Sharper attention than the random weights give, so windows and positions matter. */
  private static float[] scaled(float[] values, float factor) {
    float[] out = values.clone();
    for (int i = 0; i < out.length; i++) {
      out[i] *= factor;
    }
    return out;
  }

  private static List<GoldenCase.InputRow> rows(Random random, int[] lengths) {
    List<GoldenCase.InputRow> rows = new ArrayList<>();
    for (int r = 0; r < lengths.length; r++) {
      int t = lengths[r];
      float[][] x = new float[t][WIDTH];
      int[] mask = new int[t];
      for (int i = 0; i < t; i++) {
        for (int e = 0; e < WIDTH; e++) {
          x[i][e] = (float) random.nextGaussian();
        }
        mask[i] = i < t - 2 || t < 4 ? 1 : 0;     // right padding, as tokenizers give it
      }
      rows.add(new GoldenCase.InputRow("r" + r, x, r % 2 == 0 ? null : mask));
    }
    return rows;
  }
}
