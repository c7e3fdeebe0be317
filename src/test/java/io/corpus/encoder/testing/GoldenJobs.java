package io.corpus.encoder.testing;

import static io.corpus.encoder.testing.Tolerances.assertMapClose;
import static io.corpus.encoder.testing.Tolerances.assertVectorsClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.corpus.encoder.io.RunSummary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A golden case as an encoder job: its config file, and the check that the job's output equals
 * PyTorch's within the fixtures' tolerances. Shared by the local and the cluster job tests.
 */
public final class GoldenJobs {
  private GoldenJobs() {}

  /** Writes {@code job.conf} in {@code dir} for the case, attention maps on, progress off. */
  public static Path writeConfig(GoldenCase c, Path input, Path output, Path dir)
      throws IOException {
    Path config = dir.resolve("job.conf");
    Files.writeString(config, String.join("\n",
        "input.path = \"" + input + "\"",
        c.masked() ? "input.mask-column = mask" : "",
        "model.weights = \"" + c.weights() + "\"",
        "model.naming = " + c.naming().configName(),
        "model.heads = " + c.heads(),
        "model.activation = " + c.settings().architecture().activation().configName(),
        "model.norm-first = " + c.settings().architecture().norms().placement().first(),
        "model.final-norm = " + c.settings().architecture().norms().finalNorm(),
        "model.layer-norm-eps = " + c.settings().architecture().norms().eps(),
        "model.causal = " + c.settings().architecture().causal(),
        "model.window = " + c.settings().window().setting(),
        "model.positional = " + c.settings().positional().configName(),
        "output.path = \"" + output + "\"",
        "output.attention.enabled = true",
        "execution.progress = false",
        "execution.batch-tokens = 16"));
    return config;
  }

  /**
   * Asserts the committed output equals the case's expected values: embeddings, mean-pooled
   * vectors and every attention map, and a run summary whose counts add up.
   */
  public static RunSummary assertOutputMatches(SparkSession spark, GoldenCase c, Path output)
      throws IOException {
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
        ? in.embeddings().length : Arrays.stream(in.mask()).sum()).sum();
    assertEquals(realTokens, summary.tokens(), "each real token encoded exactly once");
    return summary;
  }
}
