package io.corpus.encoder.model;

import static io.corpus.encoder.testing.Tolerances.assertVectorsClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.PlainRunner;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * DeBERTa's position terms: the log buckets equal torch's {@code make_log_bucket_position} for
 * every distance up to 1,100 either way (src/test/resources/deberta-cases/log-buckets.json, made
 * by jobs/samples/make_deberta_cases.py), and the terms are added alike on every attention path:
 * all heads at once, one head with its maps, and tiles of every size.
 */
class DisentangledAttentionTest {

  @Test
  void logBucketsEqualTorchsForEveryDistance() throws Exception {
    JsonNode forms;
    try (InputStream in = getClass().getResourceAsStream("/deberta-cases/log-buckets.json")) {
      forms = new ObjectMapper().readTree(in);
    }
    assertEquals(5, forms.size());
    for (JsonNode form : forms) {
      int buckets = form.get("buckets").asInt();
      int maxRelative = form.get("max_relative").asInt();
      DisentangledPositions positions = new DisentangledPositions(buckets, buckets, maxRelative,
          true, true, true, false);
      int first = form.get("first").asInt();
      JsonNode want = form.get("bucket");
      for (int i = 0; i < want.size(); i++) {
        assertEquals(want.get(i).asInt(), positions.bucket(first + i),
            buckets + " buckets up to " + maxRelative + ", distance " + (first + i));
      }
    }
  }

  @ParameterizedTest
  @CsvSource({"true,true,8,3", "true,false,0,5", "false,true,8,4", "true,true,0,64"})
  void everyAttentionPathAddsTheSameTerms(boolean c2p, boolean p2c, int buckets, int tile) {
    Random random = new Random(31L * tile + buckets);
    int width = 16;
    int heads = 4;
    int span = buckets > 0 ? buckets : 12;
    DisentangledPositions form = new DisentangledPositions(span, buckets, 20, c2p, p2c, true,
        false);
    ModelSettings settings = new ModelSettings(heads, Architecture.encoder(Activation.GELU, 1e-7)
        .disentangled(form).attention(new AttentionHeads.Shaped(heads, width / heads,
            1 / Math.sqrt(4.0 * 3))).build(), Window.GLOBAL, PositionalEncoding.NONE);
    EncoderWeights plain = RandomModels.weights(random, 2, width, 32, false, 0);
    List<LayerWeights> layers = new ArrayList<>();
    for (LayerWeights l : plain.layers()) {
      layers.add(new LayerWeights(l.inProjWeight(), l.inProjBias(), l.outProjWeight(),
          l.outProjBias(), l.attentionNorm(), l.feedForward(), l.feedForwardNorm(), Norm.none(),
          Norm.none(), Norm.none(), Norm.none(), new LayerWeights.RelativePositions(
              c2p ? RandomModels.gaussian(random, 2 * span * width, 1) : new float[0],
              p2c ? RandomModels.gaussian(random, 2 * span * width, 1) : new float[0])));
    }
    EncoderWeights weights = new EncoderWeights(layers, Norm.none());
    List<GoldenCase.InputRow> rows = new ArrayList<>();
    for (int length : new int[] {70, 1, 33, 17, 40}) {
      float[][] x = new float[length][width];
      int[] mask = new int[length];
      for (int t = 0; t < length; t++) {
        for (int e = 0; e < width; e++) {
          x[t][e] = (float) random.nextGaussian();
        }
        mask[t] = t == 0 || random.nextInt(5) > 0 ? 1 : 0;
      }
      rows.add(new GoldenCase.InputRow("r" + length, x, mask));
    }
    PlainRunner.Output[] untiled = PlainRunner.run(new Encoder(settings, weights, 1000), rows, 2,
        false);
    PlainRunner.Output[] tiled = PlainRunner.run(new Encoder(settings, weights, tile), rows, 3,
        false);
    PlainRunner.Output[] withMaps = PlainRunner.run(new Encoder(settings, weights, tile), rows,
        2, true);
    for (int r = 0; r < rows.size(); r++) {
      assertVectorsClose(untiled[r].embeddings(), tiled[r].embeddings(), "tiled row " + r);
      assertVectorsClose(untiled[r].embeddings(), withMaps[r].embeddings(), "maps row " + r);
    }
  }
}
