package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.GoldenJobs;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
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
    Path output = tmp.resolve("out");
    Path config = GoldenJobs.writeConfig(c, SparkInputs.parquet(spark, c, tmp), output, tmp);
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = new EncodeCommand(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString()});
    assertEquals(0, code, err.toString(StandardCharsets.UTF_8));

    RunSummary summary = GoldenJobs.assertOutputMatches(spark, c, output);
    assertTrue(summary.blas().startsWith("OpenBLAS 0."), summary.blas());
    assertEquals(List.of("driver"), List.copyOf(summary.executors().keySet()),
        "local mode: tasks ran in the driver");
    assertEquals(c.heads(), summary.model().get("heads"));
    assertEquals(c.layers(), summary.model().get("layers"));
  }

  @AfterAll
  static void report() {
    System.out.println("EncodeJobGoldenTest: " + Tolerances.worst());
  }
}
