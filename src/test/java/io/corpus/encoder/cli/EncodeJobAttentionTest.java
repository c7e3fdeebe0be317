package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.model.HeadStatistics;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.GoldenJobs;
import io.corpus.encoder.testing.MapAnalytics;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job's attention tables and report: head-stats/ and rollout/ from a golden case equal what
 * PyTorch's maps give, attention/ in the top-k format has its columns, and the report of the
 * sample job opens in headless Chromium with every image loaded.
 */
class EncodeJobAttentionTest {
  @TempDir
  Path tmp;

  private int run(Path config, ByteArrayOutputStream err) {
    return new EncodeJob.CommandLine(new PrintStream(new ByteArrayOutputStream()),
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
   * The sample job (conf/local.conf: all-MiniLM-L6-v2 on WordNet glosses) as it is: its report
   * labels the heatmaps with the texts' real tokens, and opens in Debian's Chromium, headless,
   * with every image loaded and no error.
   */
  @Test
  void sampleReportShowsRealTokensAndOpensInHeadlessChromium() throws Exception {
    SparkSession spark = SparkTestSession.get();
    Path root = Path.of(System.getProperty("user.dir"));
    Path output = tmp.resolve("sample");
    Path config = tmp.resolve("report.conf");
    Files.writeString(config, String.join("\n",
        "include file(\"" + root.resolve("conf/local.conf") + "\")",
        "output.path = \"" + output + "\"",
        "execution.progress = false", ""));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertEquals(0, run(config, err), err.toString(StandardCharsets.UTF_8));
    Path page = output.resolve("report/index.html");
    String html = Files.readString(page);
    int images = count(html, "<img ");
    assertTrue(images >= 4, "the report draws the kept sequences' maps: " + images);
    assertTrue(html.contains("Per-head statistics") && html.contains("Head labels"));
    String first = spark.read().parquet(output.resolve("attention").toString()).select("id")
        .distinct().orderBy("id").as(Encoders.STRING()).first();   // the report's first
    List<Row> drawn = spark.read().parquet(output.resolve("embeddings").toString())
        .where(col("id").equalTo(first)).collectAsList();
    assertEquals(1, drawn.size());
    String word = drawn.get(0).getAs("id");
    List<String> tokens = drawn.get(0).getList(drawn.get(0).fieldIndex("tokens"));
    assertEquals("[CLS]", tokens.get(0));
    assertEquals(word, tokens.get(1), "WordNet texts start with their word: " + tokens);
    for (String label : List.of("[CLS]", "[SEP]", word, ":")) {
      assertTrue(html.contains("px\">" + label + "</span>"),
          "the heatmap axes show the token " + label);
    }

    Path screenshot = root.resolve("target/report-screenshot.png");
    String dom = chromium(tmp, "--virtual-time-budget=5000", "--dump-dom", page.toUri().toString());
    chromium(tmp, "--window-size=1300,2400", "--screenshot=" + screenshot,
        page.toUri().toString());
    Matcher body = Pattern.compile("<body data-images=\"(\\d+)/(\\d+)\" data-errors=\"(\\d+)\"")
        .matcher(dom);
    assertTrue(body.find(), "no load result in the page:\n" + dom.substring(0,
        Math.min(500, dom.length())));
    assertEquals(String.valueOf(images), body.group(2), "images the browser saw");
    assertEquals(body.group(2), body.group(1), "images loaded");
    assertEquals("0", body.group(3), "errors while loading");
    assertTrue(Files.size(screenshot) > 10_000);
    System.out.println("report: " + images + " of " + images + " images loaded in Chromium; "
        + "screenshot " + screenshot);
  }

  private static String chromium(Path tmp, String... args) throws Exception {
    Path profile = Files.createTempDirectory(tmp, "chromium");
    List<String> command = new java.util.ArrayList<>(List.of("chromium", "--headless",
        "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--user-data-dir=" + profile));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "chromium did not finish");
    assertEquals(0, p.exitValue(), "chromium failed");
    return out;
  }

  private static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }
}
