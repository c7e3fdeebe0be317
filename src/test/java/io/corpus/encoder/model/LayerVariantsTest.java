package io.corpus.encoder.model;

import static io.corpus.encoder.testing.Tolerances.assertMapClose;
import static io.corpus.encoder.testing.Tolerances.assertVectorsClose;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.PlainRunner;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

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
  private static final List<LayerAttention> LAYERS = List.of(new LayerAttention(0, 160000),
      new LayerAttention(3, 10000), new LayerAttention(2, 10000), new LayerAttention(0, 500));

  @Test
  void modernLayersMatchTheReference() {
    Random random = new Random(11);
    ModelSettings settings = new ModelSettings(HEADS, Activation.GELU, true, true, 1e-5, false,
        0, PositionalEncoding.NONE, LAYERS);
    EncoderWeights weights = modernWeights(random);
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

  /** Rotary positions make attention depend on where tokens stand: moved, the output changes. */
  @Test
  void rotaryPositionsReachTheOutput() {
    Random random = new Random(12);
    ModelSettings settings = new ModelSettings(HEADS, Activation.GELU, true, true, 1e-5, false,
        0, PositionalEncoding.NONE, List.of(new LayerAttention(0, 10000)));
    EncoderWeights weights = new EncoderWeights(modernWeights(random).layers().subList(1, 2),
        RandomModels.gaussian(random, WIDTH, 0.1), RandomModels.gaussian(random, WIDTH, 0.1),
        null);
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
      layers.add(new LayerWeights(scaled(w.inProjWeight(), 1.6f), w.inProjBias(),
          w.outProjWeight(), w.outProjBias(), w.ffnInWeight(), w.ffnInBias(),
          w.ffnOutWeight(), w.ffnOutBias(), attentionNorm ? w.norm1Gamma() : null,
          attentionNorm ? w.norm1Beta() : null, w.norm2Gamma(), w.norm2Beta(),
          RandomModels.gaussian(random, FFN * WIDTH, 1 / Math.sqrt(WIDTH)),
          RandomModels.gaussian(random, FFN, 0.1)));
    }
    return new EncoderWeights(layers, plain.finalNormGamma(), plain.finalNormBeta(), null);
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
