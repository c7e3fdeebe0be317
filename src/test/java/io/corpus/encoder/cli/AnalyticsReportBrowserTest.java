package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.config.SettingsParser;
import io.corpus.encoder.testing.HeadlessChromium;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.Select;

/**
 * The report's analyses in Chromium (as {@link SampleReportBrowserTest}): all-MiniLM-L6-v2 on
 * texts of several languages, run twice (the second cut to 8 tokens, with norm-based maps); the
 * first run's report, with the second's attention-norms/ beside its attention/ and compared with
 * the second run. Every number shown is checked against the Parquet tables.
 */
class AnalyticsReportBrowserTest {
  private static final String[][] TEXTS = {
      {"en", "The cat sleeps on the warm windowsill in the afternoon sun."},
      {"en", "Rain again today."},
      {"de", "Die Katze schläft auf dem warmen Fensterbrett in der Sonne."},
      {"ru", "Кошка спит на тёплом подоконнике под солнцем."},
      {"ru", "Привет, мир."},
      {"fr", "Le chat dort sur le rebord de la fenêtre, au soleil, tout l'après-midi."},
  };

  private static Path tmp;
  private static Path first;
  private static Path second;
  private static ChromeDriver browser;

  @BeforeAll
  static void runTwiceAndOpenTheComparison() throws Exception {
    SparkSession spark = SparkTestSession.get();
    tmp = Files.createTempDirectory("analytics-report");
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < TEXTS.length; i++) {
      rows.add(RowFactory.create("t" + i, TEXTS[i][1], TEXTS[i][0]));
    }
    Path input = tmp.resolve("texts.parquet");
    spark.createDataFrame(rows, new StructType().add("id", DataTypes.StringType)
        .add("text", DataTypes.StringType).add("lang", DataTypes.StringType))
        .coalesce(1).write().parquet(input.toString());
    String attention = "output.attention { enabled = true, layers = [0, 5], stats = true, "
        + "stats-by = [lang], importance = true";
    first = tmp.resolve("first");
    Path config = job(input, first, attention + " }\noutput.report { enabled = true, "
        + "sequences = 2 }");
    second = tmp.resolve("second");
    job(input, second, attention + ", measure = norms }\ninput.max-tokens = 8");
    // both measures in one folder: the second run's norm maps beside the first's weights
    copy(second.resolve("attention-norms"), first.resolve("attention-norms"));
    JobSettings settings = SettingsParser.parseFile(config);
    AttentionReport.write(spark, first.toString(), settings, "two runs", second.toString());

    browser = HeadlessChromium.open(first.resolve("report/index.html"), tmp);
    assertEquals("0", browser.findElement(By.tagName("body")).getAttribute("data-errors"));
  }

  private static Path job(Path input, Path output, String more) throws Exception {
    Path config = tmp.resolve(output.getFileName() + ".conf");
    Files.writeString(config, String.join("\n", "input.path = \"" + input + "\"",
        "input.text-column = text", "model.path = \"" + SharedModels.miniLm() + "\"",
        "output.path = \"" + output + "\"", "execution.progress = false", more, ""));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = new EncodeCommand(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString()});
    assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
    return config;
  }

  @AfterAll
  static void close() throws Exception {
    HeadlessChromium.close(browser, tmp);
  }

  @Test
  void theModelViewShowsEveryKeptMapAndOpensOneInTheHeadView() {
    List<WebElement> maps = browser.findElements(By.cssSelector("#mv-grid canvas"));
    assertEquals(2 * 12, maps.size(), "layers 0 and 5, 12 heads each");
    browser.findElement(By.cssSelector("#mv-grid canvas[data-layer='5'][data-head='3']")).click();
    WebElement lines = browser.findElement(By.id("hv-lines"));
    assertEquals("5", lines.getAttribute("data-layer"));
    assertEquals("3", lines.getAttribute("data-heads"));
  }

  @Test
  void theMeasureSwitchDrawsTheNormMapsRelativeToTheirLargest() {
    new Select(browser.findElement(By.id("hv-sequence"))).selectByIndex(0);
    String id = (String) script("return window.report.data.sequences[0].id;");
    new Select(browser.findElement(By.id("hv-measure"))).selectByValue("norms");
    assertEquals("norms", browser.findElement(By.id("mv-grid")).getAttribute("data-measure"));
    assertEquals(id, browser.findElement(By.id("mv-grid")).getAttribute("data-sequence"));
    new Select(browser.findElement(By.id("hv-layer"))).selectByValue("0");
    browser.findElement(By.cssSelector("#hv-thumbs .thumb[data-head='2']")).click();
    SparkSession spark = SparkTestSession.get();
    List<Row> all = spark.read().parquet(second.resolve("attention-norms").toString())
        .where(col("id").equalTo(id)).collectAsList();
    double largest = 0;
    double[][] map = null;
    for (Row r : all) {
      double[][] m = SparkInputs.matrix(r.getAs("weights"));
      for (double[] row : m) {
        for (double v : row) {
          largest = Math.max(largest, v);
        }
      }
      if (r.<Integer>getAs("layer") == 0 && r.<Integer>getAs("head") == 2) {
        map = m;
      }
    }
    List<?> shown = (List<?>) script("return Array.prototype.map.call(document.querySelectorAll("
        + "'#hv-lines line'), function (l) { return [Number(l.dataset.q), Number(l.dataset.k), "
        + "Number(l.dataset.w)]; });");
    assertTrue(!shown.isEmpty());
    for (Object o : shown) {
      List<?> line = (List<?>) o;
      int q = ((Number) line.get(0)).intValue();
      int k = ((Number) line.get(1)).intValue();
      assertEquals(map[q][k] / largest, ((Number) line.get(2)).doubleValue(), 1e-6);
    }
    new Select(browser.findElement(By.id("hv-measure"))).selectByValue("weights");
    assertEquals("weights", browser.findElement(By.id("mv-grid")).getAttribute("data-measure"));
  }

  @Test
  void theStatisticsOfAGroupAndTheImportancesAreTheTables() {
    new Select(browser.findElement(By.id("st-group"))).selectByVisibleText("lang=ru");
    new Select(browser.findElement(By.id("st-stat"))).selectByVisibleText("entropy");
    SparkSession spark = SparkTestSession.get();
    Row ru = spark.read().parquet(first.resolve("head-stats").toString())
        .where(col("lang").equalTo("ru").and(col("layer").equalTo(4))
            .and(col("head").equalTo(9))).first();
    assertEquals(String.format(Locale.ROOT, "%.3f", ru.<Double>getAs("entropy")), cell("st-grid",
        4, 9).getText());
    Row importance = spark.read().parquet(first.resolve("head-importance").toString())
        .where(col("layer").equalTo(2).and(col("head").equalTo(7))).first();
    assertEquals(importance.<Double>getAs("importance"),
        Double.parseDouble(cell("im-grid", 2, 7).getAttribute("data-value")), 1e-6);
  }

  @Test
  void theComparisonShowsTheDifferencesAndTheRowsThatMovedMost() throws Exception {
    new Select(browser.findElement(By.id("cmp-what"))).selectByVisibleText("importance");
    SparkSession spark = SparkTestSession.get();
    double[] a = importance(first);
    double[] b = importance(second);
    for (int at : new int[] {0, 17, 71}) {
      assertEquals(a[at] - b[at], Double.parseDouble(cell("cmp-grid", at / 12, at % 12)
          .getAttribute("data-value")), 1e-6, "layer and head " + at);
    }
    Map<String, double[]> one = pooled(first);
    Map<String, double[]> two = pooled(second);
    String lowest = null;
    double least = 2;
    for (String id : one.keySet()) {
      double dot = 0, aa = 0, bb = 0;
      for (int i = 0; i < one.get(id).length; i++) {
        dot += one.get(id)[i] * two.get(id)[i];
        aa += one.get(id)[i] * one.get(id)[i];
        bb += two.get(id)[i] * two.get(id)[i];
      }
      double cosine = dot / Math.sqrt(aa * bb);
      if (cosine < least) {
        least = cosine;
        lowest = id;
      }
    }
    WebElement top = browser.findElement(By.cssSelector("#cmp-moved tr[data-id]"));
    assertEquals(lowest, top.getAttribute("data-id"));
    assertEquals(least, Double.parseDouble(top.findElements(By.tagName("td")).get(1).getText()),
        1e-6);
    long counted = 0;
    for (WebElement bar : browser.findElements(By.cssSelector("#cmp-histogram rect"))) {
      counted += Long.parseLong(bar.getAttribute("data-count"));
    }
    assertEquals(TEXTS.length, counted, "every row in one bin");

    Path shots = Path.of(System.getProperty("user.dir"), "target", "report-screenshots");
    Files.createDirectories(shots);
    new Select(browser.findElement(By.id("st-group"))).selectByVisibleText("lang=ru");
    for (String view : List.of("model-view", "statistics", "importance", "compare")) {
      WebElement section = browser.findElement(By.id(view));
      script("arguments[0].scrollIntoView()", section);
      Path file = shots.resolve(view + ".png");
      Files.write(file, section.getScreenshotAs(OutputType.BYTES));
      assertTrue(Files.size(file) > 5_000, view + " screenshot");
    }
  }

  private static double[] importance(Path output) {
    double[] values = new double[6 * 12];
    for (Row r : SparkTestSession.get().read().parquet(output.resolve("head-importance")
        .toString()).collectAsList()) {
      values[r.<Integer>getAs("layer") * 12 + r.<Integer>getAs("head")] = r.getAs("importance");
    }
    return values;
  }

  private static Map<String, double[]> pooled(Path output) {
    Map<String, double[]> byId = new HashMap<>();
    for (Row r : SparkTestSession.get().read().parquet(output.resolve("embeddings").toString())
        .select("id", "pooled").collectAsList()) {
      byId.put(r.getString(0), SparkInputs.vector(r.get(1)));
    }
    return byId;
  }

  private static WebElement cell(String table, int layer, int head) {
    return browser.findElement(By.cssSelector("#" + table + " tr[data-layer='" + layer
        + "'] td[data-head='" + head + "']"));
  }

  private static void copy(Path from, Path to) throws Exception {
    try (var paths = Files.walk(from)) {
      for (Path p : paths.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }

  private static Object script(String code, Object... args) {
    return ((JavascriptExecutor) browser).executeScript(code, args);
  }
}
