package io.corpus.encoder.cli;

import static org.apache.spark.ml.functions.array_to_vector;
import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.HeadlessChromium;
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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.apache.spark.ml.feature.PCA;
import org.apache.spark.ml.linalg.Matrix;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.Select;

/**
 * The sample job's report (conf/local.conf as it is) in a real browser: Debian's Chromium,
 * headless, driven through its WebDriver (chromium-driver) by Selenium. Every number the page
 * shows is checked against the job's own Parquet output: the head view's lines against
 * attention/, the map's points against embeddings/, the neighbours against cosines of the pooled
 * vectors computed here. Screenshots of the three views go to target/report-screenshots/.
 */
class SampleReportBrowserTest {
  private static final double MIN_WEIGHT = 0.001;   // report.js draws no lighter line

  private static Path tmp;
  private static Path output;
  private static ChromeDriver browser;

  @BeforeAll
  static void runTheSampleJobAndOpenItsReport() throws Exception {
    tmp = Files.createTempDirectory("sample-report");
    output = tmp.resolve("sample");
    Path root = Path.of(System.getProperty("user.dir"));
    Path config = tmp.resolve("report.conf");
    Files.writeString(config, String.join("\n",
        "include file(\"" + root.resolve("conf/local.conf") + "\")",
        "output.path = \"" + output + "\"",
        "execution.progress = false", ""));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = new EncodeCommand(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString()});
    assertEquals(0, code, err.toString(StandardCharsets.UTF_8));

    browser = HeadlessChromium.open(output.resolve("report/index.html"), tmp);
  }

  @AfterAll
  static void close() throws Exception {
    HeadlessChromium.close(browser, tmp);
  }

  @Test
  void choosingALayerAndHeadsDrawsTheirWeightsFromTheParquet() throws Exception {
    String id = firstSequence();
    new Select(browser.findElement(By.id("hv-layer"))).selectByValue("5");
    browser.findElement(By.cssSelector("#hv-thumbs .thumb[data-head='3']")).click();
    assertEquals("5", browser.findElement(By.id("hv-lines")).getAttribute("data-layer"));
    assertLinesAre(Map.of(3, map(id, 5, 3)), lines());

    new Actions(browser).keyDown(Keys.SHIFT)
        .click(browser.findElement(By.cssSelector("#hv-thumbs .thumb[data-head='7']")))
        .keyUp(Keys.SHIFT).perform();
    assertEquals("3,7", browser.findElement(By.id("hv-lines")).getAttribute("data-heads"));
    assertLinesAre(Map.of(3, map(id, 5, 3), 7, map(id, 5, 7)), lines());
    List<WebElement> stats = browser.findElements(By.cssSelector("#hv-stats tr[data-head]"));
    assertEquals(2, stats.size(), "the statistics of the two selected heads");
    SparkSession spark = SparkTestSession.get();
    double entropy = spark.read().parquet(output.resolve("head-stats").toString())
        .where(col("layer").equalTo(5).and(col("head").equalTo(7))).first().getAs("entropy");
    assertEquals(String.format(java.util.Locale.ROOT, "%.3f", entropy),
        stats.get(1).findElements(By.tagName("td")).get(1).getText());

    new Select(browser.findElement(By.id("hv-layer"))).selectByValue("-1");
    double[][] rollout = SparkInputs.matrix(spark.read().parquet(output.resolve("rollout")
        .toString()).where(col("id").equalTo(id)).first().getAs("weights"));
    assertLinesAre(Map.of(-1, rollout), lines());
  }

  @Test
  void theHeadViewShowsTheTextsRealTokens() {
    String id = firstSequence();
    Row row = SparkTestSession.get().read().parquet(output.resolve("embeddings").toString())
        .where(col("id").equalTo(id)).first();
    List<String> tokens = row.getList(row.fieldIndex("tokens"));
    assertEquals("[CLS]", tokens.get(0));
    assertEquals(id, tokens.get(1), "WordNet texts start with their word: " + tokens);
    for (String side : List.of("q", "k")) {
      List<String> shown = browser.findElements(By.cssSelector("#hv-lines text[data-side='"
          + side + "']")).stream().map(WebElement::getText).toList();
      assertEquals(tokens.subList(0, Math.min(64, tokens.size())), shown);
    }
    String html = readPage();
    for (String label : List.of("[CLS]", "[SEP]", id, ":")) {
      assertTrue(html.contains("px\">" + label + "</span>"),
          "the static heatmaps' axes show the token " + label);
    }
  }

  @Test
  void hoveringATokenLeavesOnlyItsLines() throws Exception {
    String id = firstSequence();
    new Select(browser.findElement(By.id("hv-layer"))).selectByValue("0");
    browser.findElement(By.cssSelector("#hv-thumbs .thumb[data-head='2']")).click();
    double[][] weights = map(id, 0, 2);
    for (String side : List.of("q", "k")) {
      int t = 2;
      new Actions(browser).moveToElement(browser.findElement(
          By.cssSelector("#hv-lines text[data-side='" + side + "'][data-t='" + t + "']")))
          .perform();
      List<double[]> visible = new ArrayList<>();
      for (double[] line : lines()) {
        if (line[4] == 1) {
          visible.add(line);
        }
      }
      int expected = 0;
      for (int other = 0; other < weights.length; other++) {
        double w = side.equals("q") ? weights[t][other] : weights[other][t];
        expected += w >= MIN_WEIGHT ? 1 : 0;
      }
      assertEquals(expected, visible.size(), "lines left when token " + t + " is hovered as "
          + side);
      for (double[] line : visible) {
        assertEquals(t, (int) line[side.equals("q") ? 1 : 2], "a line of another token shows");
      }
      new Actions(browser).moveToElement(browser.findElement(By.id("hv-thumbs"))).perform();
      assertTrue(lines().stream().allMatch(line -> line[4] == 1), "all lines back");
    }
  }

  @Test
  void theMapHasOnePointPerRowOnTheirPrincipalComponentsColouredByCategory() {
    SparkSession spark = SparkTestSession.get();
    List<Row> counts = spark.read().parquet(output.resolve("embeddings").toString())
        .groupBy("category").count().collectAsList();
    long rows = counts.stream().mapToLong(r -> r.getLong(1)).sum();
    WebElement canvas = browser.findElement(By.id("map-canvas"));
    assertEquals(String.valueOf(rows), canvas.getAttribute("data-points"));
    for (Row r : counts) {
      WebElement item = browser.findElement(By.cssSelector("#map-legend [data-value='"
          + r.getString(0) + "']"));
      assertEquals(r.getString(0) + " (" + r.getLong(1) + ")", item.getText());
    }
    // the points are the pooled vectors on Spark ML's first two principal components
    Map<String, double[]> pooled = pooledVectors();
    Matrix pc = new PCA().setK(2).setInputCol("v").fit(spark.read().parquet(output.resolve(
        "embeddings").toString()).select(array_to_vector(col("pooled")).as("v"))).pc();
    List<?> ids = (List<?>) script("return window.report.data.map.ids;");
    float[] x = floats((String) script("return window.report.data.map.x;"));
    float[] y = floats((String) script("return window.report.data.map.y;"));
    assertEquals(rows, ids.size());
    for (int i = 0; i < ids.size(); i++) {
      double[] v = pooled.get((String) ids.get(i));
      double[] expected = new double[2];
      for (int j = 0; j < v.length; j++) {
        expected[0] += v[j] * pc.apply(j, 0);
        expected[1] += v[j] * pc.apply(j, 1);
      }
      assertEquals(expected[0], x[i], 1e-4, "x of " + ids.get(i));
      assertEquals(expected[1], y[i], 1e-4, "y of " + ids.get(i));
    }

    // hovering a point (one with no other within 10 pixels) shows its id
    script("arguments[0].scrollIntoView()", canvas);
    Number lonely = (Number) script("var m = window.report.map, n = " + rows + ";"
        + "for (var i = 0; i < n; i++) { var p = m.position(i), alone = true;"
        + "  for (var j = 0; j < n && alone; j++) { var q = m.position(j);"
        + "    alone = i === j || Math.hypot(p[0] - q[0], p[1] - q[1]) > 10; }"
        + "  if (alone) { return i; } } return -1;");
    int point = lonely.intValue();
    assertTrue(point >= 0, "some point stands alone");
    List<?> at = (List<?>) script("return window.report.map.position(arguments[0]);", point);
    String id = (String) script("return window.report.data.map.ids[arguments[0]];", point);
    // Selenium's offsets are from the element's centre; the canvas has a 1 pixel border
    double dx = 1 + ((Number) at.get(0)).doubleValue() - canvas.getSize().getWidth() / 2.0;
    double dy = 1 + ((Number) at.get(1)).doubleValue() - canvas.getSize().getHeight() / 2.0;
    new Actions(browser).moveToElement(canvas, (int) Math.round(dx), (int) Math.round(dy))
        .perform();
    WebElement tip = browser.findElement(By.id("map-tip"));
    assertTrue(tip.isDisplayed());
    assertEquals(String.valueOf(point), tip.getAttribute("data-row"));
    assertTrue(tip.getText().startsWith(id), "the tooltip names the point: " + tip.getText());
  }

  @Test
  void theNeighboursOfDogAreTheLargestCosinesOfThePooledVectors() {
    WebElement search = browser.findElement(By.id("nb-search"));
    search.clear();
    search.sendKeys("dog");
    List<WebElement> shown = browser.findElements(By.cssSelector("#nb-table tr[data-id]"));
    assertEquals("dog", browser.findElement(By.id("nb-table")).getAttribute("data-row"));
    Map<String, double[]> pooled = pooledVectors();
    double[] dog = pooled.get("dog");
    List<Map.Entry<String, Double>> ranking = new ArrayList<>();
    pooled.forEach((other, v) -> {
      if (!other.equals("dog")) {
        ranking.add(Map.entry(other, Tolerances.cosine(dog, v)));
      }
    });
    ranking.sort(Comparator.comparingDouble((Map.Entry<String, Double> e) -> -e.getValue()));
    assertEquals(10, shown.size(), "output.report.neighbours = 10 by default");
    for (int r = 0; r < shown.size(); r++) {
      String id = shown.get(r).getAttribute("data-id");
      double score = Double.parseDouble(shown.get(r).getAttribute("data-score"));
      assertEquals(ranking.get(r).getValue(), score, 1e-5, "rank " + (r + 1));
      assertEquals(Tolerances.cosine(dog, pooled.get(id)), score, 1e-5,
          "the score is " + id + "'s");
    }
    assertEquals(ranking.get(0).getKey(), shown.get(0).getAttribute("data-id"));
    System.out.println("report: neighbours of dog: " + shown.stream().map(e -> e.getAttribute(
        "data-id")).toList());
  }

  @Test
  void pageLoadsEveryImageLogsNoErrorAndScreenshotsTheViews() throws Exception {
    String images = body().getAttribute("data-images");
    assertFalse(images.equals("pending"));
    String[] loaded = images.split("/");
    assertEquals(loaded[1], loaded[0], "images loaded");
    assertTrue(Integer.parseInt(loaded[1]) >= 4, "the static heatmaps: " + images);
    assertEquals("0", body().getAttribute("data-errors"));
    List<LogEntry> severe = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
        .filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue()).toList();
    assertTrue(severe.isEmpty(), "the browser logged " + severe);
    long bytes = Files.size(output.resolve("report/index.html"));
    assertTrue(bytes < 10 << 20, "the page is " + bytes + " bytes");

    Path shots = Path.of(System.getProperty("user.dir"), "target", "report-screenshots");
    Files.createDirectories(shots);
    // the views as a reader would leave them: layer 0 with heads 2 and 4, the token "ankle"
    // clicked (its lines kept); "dog" searched, its neighbours ringed on the map
    firstSequence();
    new Select(browser.findElement(By.id("hv-layer"))).selectByValue("0");
    browser.findElement(By.cssSelector("#hv-thumbs .thumb[data-head='2']")).click();
    new Actions(browser).keyDown(Keys.SHIFT)
        .click(browser.findElement(By.cssSelector("#hv-thumbs .thumb[data-head='4']")))
        .keyUp(Keys.SHIFT).perform();
    browser.findElement(By.cssSelector("#hv-lines text[data-side='q'][data-t='1']")).click();
    WebElement search = browser.findElement(By.id("nb-search"));
    search.clear();
    search.sendKeys("dog");
    for (String view : List.of("head-view", "corpus-map", "neighbours")) {
      WebElement section = browser.findElement(By.id(view));
      script("arguments[0].scrollIntoView()", section);
      Path file = shots.resolve(view + ".png");
      Files.write(file, section.getScreenshotAs(OutputType.BYTES));
      assertTrue(Files.size(file) > 10_000, view + " screenshot");
    }
    browser.findElement(By.cssSelector("#hv-lines text[data-side='q'][data-t='1']")).click();
    System.out.println("report: " + bytes + " bytes, drawn " + body().getAttribute("data-ready")
        + " ms after navigation; screenshots in " + shots);
  }

  /** The first sequence of the head view, chosen again (tests run in any order). */
  private static String firstSequence() {
    new Select(browser.findElement(By.id("hv-sequence"))).selectByIndex(0);
    return (String) script("return window.report.data.sequences[0].id;");
  }

  /** Each line of the head view: head, query, key, weight, 1 if shown else 0. */
  private static List<double[]> lines() {
    List<?> raw = (List<?>) script("return Array.prototype.map.call("
        + "document.querySelectorAll('#hv-lines line'), function (l) { return [Number(l.dataset"
        + ".head), Number(l.dataset.q), Number(l.dataset.k), Number(l.dataset.w), "
        + "l.style.display === 'none' ? 0 : 1]; });");
    List<double[]> lines = new ArrayList<>();
    for (Object o : raw) {
      List<?> l = (List<?>) o;
      double[] line = new double[5];
      for (int i = 0; i < 5; i++) {
        line[i] = ((Number) l.get(i)).doubleValue();
      }
      lines.add(line);
    }
    return lines;
  }

  /** The lines are exactly the weights of at least MIN_WEIGHT of the maps, by head. */
  private static void assertLinesAre(Map<Integer, double[][]> maps, List<double[]> lines) {
    int limit = 64;   // output.report.max-tokens
    int expected = 0;
    for (double[][] w : maps.values()) {
      int n = Math.min(limit, w.length);
      for (int q = 0; q < n; q++) {
        for (int k = 0; k < n; k++) {
          expected += w[q][k] >= MIN_WEIGHT ? 1 : 0;
        }
      }
    }
    assertEquals(expected, lines.size(), "one line per weight of at least " + MIN_WEIGHT);
    for (double[] line : lines) {
      double[][] w = maps.get((int) line[0]);
      assertEquals((float) w[(int) line[1]][(int) line[2]], (float) line[3],
          "head " + (int) line[0] + " query " + (int) line[1] + " key " + (int) line[2]);
    }
  }

  private static double[][] map(String id, int layer, int head) {
    Row r = SparkTestSession.get().read().parquet(output.resolve("attention").toString())
        .where(col("id").equalTo(id).and(col("layer").equalTo(layer))
            .and(col("head").equalTo(head))).first();
    return SparkInputs.matrix(r.getAs("weights"));
  }

  private static Map<String, double[]> pooledVectors() {
    Map<String, double[]> pooled = new HashMap<>();
    for (Row r : SparkTestSession.get().read().parquet(output.resolve("embeddings").toString())
        .select("id", "pooled").collectAsList()) {
      pooled.put(r.getString(0), SparkInputs.vector(r.getList(1)));
    }
    return pooled;
  }

  /** The page's packed float32 array. */
  private static float[] floats(String base64) {
    ByteBuffer bytes = ByteBuffer.wrap(Base64.getDecoder().decode(base64))
        .order(ByteOrder.LITTLE_ENDIAN);
    float[] out = new float[bytes.remaining() / 4];
    bytes.asFloatBuffer().get(out);
    return out;
  }


  private static String readPage() {
    try {
      return Files.readString(output.resolve("report/index.html"));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static WebElement body() {
    return browser.findElement(By.tagName("body"));
  }

  private static Object script(String code, Object... args) {
    return ((JavascriptExecutor) browser).executeScript(code, args);
  }
}
