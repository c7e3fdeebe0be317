package io.corpus.encoder.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.kernel.Precision;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The one count of a model's parameters and bytes, against sums written out by hand. */
class ParametersTest {
  private static final int E = 8;
  private static final int F = 12;
  private static final int V = 20;

  /** One layer's values: q, k, v and output projections, feed-forward, two norms. */
  private static final long LAYER = 3L * E * E + 3 * E + E * E + E + F * E + F + E * F + E
      + 4 * E;

  private final Random random = new Random(3);

  private EmbeddingWeights embeddings() {
    return new EmbeddingWeights(RandomModels.gaussian(random, V * E, 1),
        RandomModels.gaussian(random, 16 * E, 1), RandomModels.gaussian(random, 2 * E, 1),
        RandomModels.gaussian(random, E, 1), RandomModels.gaussian(random, E, 1));
  }

  @Test
  void aModelCountsEveryTensorOnceAndItsMatricesInTheirPrecision() {
    EncoderWeights encoder = RandomModels.weights(random, 2, E, F, true, 0);
    EmbeddingWeights embeddings = embeddings();
    long embedded = V * E + 16 * E + 2 * E + 2 * E;
    EncoderModel model = new EncoderModel(embeddings, encoder);
    assertEquals(2 * LAYER + 2 * E + embedded, model.heldValues());
    assertEquals(4 * model.heldValues(), model.bytes());

    // the layers' five matrices in bfloat16: two bytes each of their values, the rest four
    long matrices = 2 * (3L * E * E + E * E + 2L * F * E);
    EncoderModel reduced = model.in(Precision.BFLOAT16);
    assertEquals(model.heldValues(), reduced.heldValues());
    assertEquals(model.bytes() - 2 * matrices, reduced.bytes());
  }

  @Test
  void aTiedDecoderIsNotCountedAgainButItsReducedCopyIsHeld() {
    EmbeddingWeights embeddings = embeddings();
    SpladeHead splade = new SpladeHead(Matrix.of(RandomModels.gaussian(random, E * E, 1), E, E),
        new float[E], Activation.GELU, new float[E], new float[E], 1e-12,
        Matrix.of(embeddings.word().floats(), V, E), new float[V], false, false);
    EncoderModel model = new EncoderModel(embeddings, RandomModels.weights(random, 1, E, F,
        false, 0), splade);
    long head = E * E + 3 * E + V;
    long embedded = V * E + 16 * E + 2 * E + 2 * E;
    assertEquals(LAYER + embedded + head, model.heldValues());
    assertEquals(4 * model.heldValues(), model.bytes(), "the table is held once");
    EncoderModel reduced = model.in(Precision.BFLOAT16);
    assertEquals(model.heldValues(), reduced.heldValues());
    assertEquals(4 * model.heldValues() - 2 * (3L * E * E + E * E + 2L * F * E)
        - 2L * E * E + 2L * V * E, reduced.bytes(), "the decoder's bfloat16 copy beside it");
  }

  @Test
  void aSharedVectorCountsOnceAndScalarsAndIdsAreNotParameters() {
    float[] weight = RandomModels.gaussian(random, E, 1);
    LexicalHead lexical = new LexicalHead(weight, new float[1], new int[] {0, 1, 2});
    assertEquals(E + 1, Parameters.count(lexical));
    assertEquals(E + 2, Parameters.count(List.of(lexical, new LexicalHead(weight,
        new float[1], new int[] {3}))), "the second head adds its own bias alone");
  }
}
