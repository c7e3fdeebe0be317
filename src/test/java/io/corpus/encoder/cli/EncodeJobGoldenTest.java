package io.corpus.encoder.cli;

import static io.corpus.encoder.testing.Tolerances.assertMapClose;
import static io.corpus.encoder.testing.Tolerances.assertVectorsClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every golden case through the job's command line ({@code jobs/encode --config FILE}), on the
 * shared local session: Parquet in, embeddings, pooled vectors and attention maps out, equal to
 * PyTorch's within the fixtures' tolerances; the run summary adds up and names the BLAS.
 */
class EncodeJobGoldenTest {
  @TempDir
  Path tmp;

  static List<GoldenCase> cases() {
    return GoldenCase.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void jobMatchesPyTorch(GoldenCase c) throws Exception {
    SparkSession spark = SparkTestSession.get();
    Path input = SparkInputs.parquet(spark, c, tmp);
    Path output = tmp.resolve("out");
    Path config = tmp.resolve("job.conf");
    Files.writeString(config, String.join("\n",
        "input.path = \"" + input + "\"",
        c.masked() ? "input.mask-column = mask" : "",
        "model.weights = \"" + c.weights() + "\"",
        "model.naming = " + c.naming().configName(),
        "model.heads = " + c.heads(),
        "model.activation = " + c.settings().activation().configName(),
        "model.norm-first = " + c.settings().normFirst(),
        "model.final-norm = " + c.settings().finalNorm(),
        "model.layer-norm-eps = " + c.settings().layerNormEps(),
        "model.causal = " + c.settings().causal(),
        "model.window = " + c.settings().window(),
        "model.positional = " + c.settings().positional().configName(),
        "output.path = \"" + output + "\"",
        "output.attention.enabled = true",
        "execution.progress = false",
        "execution.batch-tokens = 16"));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = new EncodeJob.CommandLine(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString()});
    assertEquals(0, code, err.toString(StandardCharsets.UTF_8));

    Map<String, Row> embeddings = new HashMap<>();
    for (Row r : spark.read().parquet(output.resolve("embeddings").toString()).collectAsList()) {
      embeddings.put(r.getAs("id"), r);
    }
    Map<String, double[][]> maps = new HashMap<>();
    for (Row r : spark.read().parquet(output.resolve("attention").toString()).collectAsList()) {
      maps.put(r.getAs("id") + "/" + r.getAs("layer") + "/" + r.getAs("head"),
          SparkInputs.matrix(r.getAs("weights")));
    }
    assertEquals(c.expected().size(), embeddings.size());
    assertEquals(c.expected().size() * c.layers() * c.heads(), maps.size());
    for (GoldenCase.ExpectedRow expected : c.expected()) {
      Row row = embeddings.get(expected.id());
      assertVectorsClose(expected.embeddings(), SparkInputs.matrix(row.getAs("embeddings")),
          c + " " + expected.id() + " embeddings");
      assertVectorsClose(new double[][] {expected.pooledMean()},
          new double[][] {SparkInputs.vector(row.getAs("pooled"))},
          c + " " + expected.id() + " pooled");
      for (int l = 0; l < c.layers(); l++) {
        for (int h = 0; h < c.heads(); h++) {
          assertMapClose(expected.attention()[l][h], maps.get(expected.id() + "/" + l + "/" + h),
              c + " " + expected.id() + " layer " + l + " head " + h);
        }
      }
    }

    RunSummary summary = RunSummary.read(output.resolve("run-summary.json"));
    assertEquals(c.inputs().size(), summary.rowsRead());
    assertEquals(c.inputs().size(), summary.rowsWritten());
    assertEquals(0, summary.rowsRejected());
    long realTokens = c.inputs().stream().mapToLong(in -> in.mask() == null
        ? in.embeddings().length : java.util.Arrays.stream(in.mask()).sum()).sum();
    assertEquals(realTokens, summary.tokens(), "each real token encoded exactly once");
    assertTrue(summary.blas().startsWith("dev.ludovic.netlib.blas."), summary.blas());
    assertEquals(c.heads(), summary.model().get("heads"));
    assertEquals(c.layers(), summary.model().get("layers"));
  }

  @AfterAll
  static void report() {
    System.out.println("EncodeJobGoldenTest: " + Tolerances.worst());
  }
}
