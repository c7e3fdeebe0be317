package io.corpus.encoder.model;

import static io.corpus.encoder.testing.Tolerances.assertMapClose;
import static io.corpus.encoder.testing.Tolerances.assertVectorsClose;

import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.PlainRunner;
import io.corpus.encoder.testing.Tolerances;
import io.corpus.encoder.weights.WeightsLoader;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The fast and the reference encoder, without Spark, against PyTorch's golden outputs. */
class EncoderGoldenTest {
  static List<GoldenCase> cases() {
    return GoldenCase.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void fastEncoderMatchesPyTorch(GoldenCase c) {
    EncoderWeights weights = WeightsLoader.load(c.weights(), c.naming(), c.settings());
    // Batches of 2 sequences: stacking must not mix sequences.
    PlainRunner.Output[] out = PlainRunner.run(c.settings(), weights, c.inputs(), 2);
    for (int r = 0; r < out.length; r++) {
      GoldenCase.ExpectedRow expected = c.expected().get(r);
      assertVectorsClose(expected.embeddings(), out[r].embeddings(), c + " " + expected.id());
      for (int l = 0; l < c.layers(); l++) {
        for (int h = 0; h < c.heads(); h++) {
          assertMapClose(expected.attention()[l][h], out[r].attention()[l][h],
              c + " " + expected.id() + " layer " + l + " head " + h);
        }
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void referenceEncoderMatchesPyTorch(GoldenCase c) {
    EncoderWeights weights = WeightsLoader.load(c.weights(), c.naming(), c.settings());
    ReferenceEncoder reference = new ReferenceEncoder(c.settings(), weights);
    for (int r = 0; r < c.inputs().size(); r++) {
      GoldenCase.InputRow in = c.inputs().get(r);
      ReferenceEncoder.Result out = reference.encode(in.embeddings(), in.valid());
      GoldenCase.ExpectedRow expected = c.expected().get(r);
      assertVectorsClose(expected.embeddings(), out.embeddings(), c + " " + in.id());
      for (int l = 0; l < c.layers(); l++) {
        for (int h = 0; h < c.heads(); h++) {
          assertMapClose(expected.attention()[l][h], out.attention()[l][h],
              c + " " + in.id() + " layer " + l + " head " + h);
        }
      }
    }
  }

  @AfterAll
  static void report() {
    System.out.println("EncoderGoldenTest: " + Tolerances.worst());
  }
}
