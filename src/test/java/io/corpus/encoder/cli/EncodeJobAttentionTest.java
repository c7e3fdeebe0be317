package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.model.HeadStatistics;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.GoldenJobs;
import io.corpus.encoder.testing.MapAnalytics;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job's attention tables and report: head-stats/ and rollout/ from a golden case equal what
 * PyTorch's maps give, and attention/ in the top-k format has its columns. The sample job's
 * report is tested in a browser by SampleReportBrowserTest.
 */
class EncodeJobAttentionTest {
  @TempDir
  Path tmp;

  private int run(Path config, ByteArrayOutputStream err) {
    return new EncodeCommand(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString()});
  }

  @Test
  void headStatsAndRolloutTablesEqualPyTorchsMaps() throws Exception {
    SparkSession spark = SparkTestSession.get();
    GoldenCase c = GoldenCase.named("x-causal-window-padded");
    Path output = tmp.resolve("out");
    Path config = GoldenJobs.writeConfig(c, SparkInputs.parquet(spark, c, tmp), output, tmp);
    Files.writeString(config, Files.readString(config) + "\noutput.attention { format = top-k, "
        + "top-k = 2, stats = true, rollout = true }\n");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertEquals(0, run(config, err), err.toString(StandardCharsets.UTF_8));

    double[][] sums = new double[c.layers() * c.heads()][HeadStatistics.COUNT];
    long[] rows = new long[c.layers() * c.heads()];
    Map<String, boolean[]> real = c.inputs().stream()
        .collect(Collectors.toMap(GoldenCase.InputRow::id, GoldenCase.InputRow::valid));
    for (GoldenCase.ExpectedRow e : c.expected()) {
      for (int l = 0; l < c.layers(); l++) {
        for (int h = 0; h < c.heads(); h++) {
          double[] s = MapAnalytics.statSums(e.attention()[l][h], real.get(e.id()));
          for (int k = 0; k < s.length; k++) {
            sums[l * c.heads() + h][k] += s[k];
          }
          rows[l * c.heads() + h] += MapAnalytics.realCount(e.attention()[l][h].length,
              real.get(e.id()));
        }
      }
    }
    List<Row> table = spark.read().parquet(output.resolve("head-stats").toString())
        .orderBy("layer", "head").collectAsList();
    assertEquals(c.layers() * c.heads(), table.size());
    for (Row r : table) {
      int m = r.<Integer>getAs("layer") * c.heads() + r.<Integer>getAs("head");
      assertEquals(rows[m], r.<Long>getAs("rows"));
      for (HeadStatistics.Stat stat : HeadStatistics.Stat.values()) {
        assertEquals(sums[m][stat.ordinal()] / rows[m], r.<Double>getAs(stat.column()), 1e-4,
            stat.column() + " of layer " + r.getAs("layer") + " head " + r.getAs("head"));
      }
    }
    List<Row> rollout = spark.read().parquet(output.resolve("rollout").toString()).collectAsList();
    assertEquals(c.expected().size(), rollout.size());
    for (Row r : rollout) {
      String id = r.getAs("id");
      GoldenCase.ExpectedRow e = c.expected().stream().filter(x -> x.id().equals(id))
          .findFirst().orElseThrow();
      Tolerances.assertMapClose(MapAnalytics.rollout(e.attention(), real.get(id)),
          SparkInputs.matrix(r.getAs("weights")), id + " rollout");
    }
    List<String> columns = List.of(spark.read().parquet(output.resolve("attention").toString())
        .columns());
    assertEquals(List.of("id", "head", "top_keys", "top_weights", "layer"), columns);
  }

  /**
   * The report of a job with top-k maps: the head view's data holds, for each map of the first
   * sequence, the k weights written (at their keys, 0 elsewhere), and the rollout.
   */
  @Test
  void reportOfTopKMapsCarriesTheWrittenWeights() throws Exception {
    SparkSession spark = SparkTestSession.get();
    GoldenCase c = GoldenCase.named("x-causal-window-padded");
    Path output = tmp.resolve("out");
    Path config = GoldenJobs.writeConfig(c, SparkInputs.parquet(spark, c, tmp), output, tmp);
    Files.writeString(config, Files.readString(config) + "\noutput.attention { format = top-k, "
        + "top-k = 2, rollout = true }\noutput.report { enabled = true, sequences = 1 }\n");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertEquals(0, run(config, err), err.toString(StandardCharsets.UTF_8));

    String html = Files.readString(output.resolve("report/index.html"));
    String marker = "<script type=\"application/json\" id=\"report-data\">";
    int from = html.indexOf(marker) + marker.length();
    JsonNode sequence = new ObjectMapper().readTree(html.substring(from,
        html.indexOf("</script>", from)).replace("<\\/", "</")).get("sequences").get(0);
    assertEquals("top-k", sequence.get("format").asText());
    String id = sequence.get("id").asText();
    int checked = 0;
    for (JsonNode map : sequence.get("maps")) {
      int n = map.get("n").asInt();
      ByteBuffer bytes = ByteBuffer.wrap(Base64.getDecoder().decode(map.get("weights").asText()))
          .order(ByteOrder.LITTLE_ENDIAN);
      float[] shown = new float[n * n];
      bytes.asFloatBuffer().get(shown);
      float[] expected = new float[n * n];
      if (map.get("layer").asInt() < 0) {
        double[][] rollout = SparkInputs.matrix(spark.read().parquet(output.resolve("rollout")
            .toString()).where(col("id").equalTo(id)).first().getAs("weights"));
        for (int q = 0; q < n; q++) {
          for (int k = 0; k < n; k++) {
            expected[q * n + k] = (float) rollout[q][k];
          }
        }
      } else {
        Row r = spark.read().parquet(output.resolve("attention").toString())
            .where(col("id").equalTo(id).and(col("layer").equalTo(map.get("layer").asInt()))
                .and(col("head").equalTo(map.get("head").asInt()))).first();
        double[][] keys = SparkInputs.matrix(r.getAs("top_keys"));
        double[][] weights = SparkInputs.matrix(r.getAs("top_weights"));
        for (int q = 0; q < n; q++) {
          for (int p = 0; p < keys[q].length; p++) {
            expected[q * n + (int) keys[q][p]] = (float) weights[q][p];
          }
        }
      }
      assertArrayEquals(expected, shown, "layer " + map.get("layer") + " head " + map.get("head"));
      checked++;
    }
    assertEquals(c.layers() * c.heads() + 1, checked, "every map of the sequence and its rollout");
  }
}
