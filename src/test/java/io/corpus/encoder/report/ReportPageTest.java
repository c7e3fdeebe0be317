package io.corpus.encoder.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.awt.image.BufferedImage;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

class ReportPageTest {
  @Test
  void heatmapHasOneCellPerWeightDarkestAtTheLargest() throws Exception {
    float[][] w = {{0f, 1f}, {0.5f, 0.25f}};
    BufferedImage image = ImageIO.read(new ByteArrayInputStream(HeatmapPng.render(w, 3)));
    assertEquals(6, image.getWidth());
    assertEquals(6, image.getHeight());
    assertEquals(0xffffff, image.getRGB(0, 0) & 0xffffff, "0 is white");
    assertEquals(HeatmapPng.color(1f), image.getRGB(4, 1) & 0xffffff, "the largest is darkest");
    assertEquals(HeatmapPng.color(0.5f), image.getRGB(1, 4) & 0xffffff);
  }

  @Test
  void labelsFollowTheStatedRules() {
    double lnT = Math.log(32);
    assertEquals(List.of("broad"), HeadLabels.of(0.95 * lnT, 0.1, 0.1, 0.1, 0.1, lnT));
    assertEquals(List.of(), HeadLabels.of(0.85 * lnT, 0.5, 0.1, 0.1, 0.1, lnT));
    assertEquals(List.of("previous-token", "first-token"),
        HeadLabels.of(0.1, 0.6, 0.1, 0.7, 0.1, lnT));
    assertEquals(List.of("next-token", "self"), HeadLabels.of(0.1, 0.1, 0.51, 0.1, 0.9, lnT));
  }

  @Test
  void pageEscapesTokensAndCountsItsImages() {
    float[][] map = {{1f, 0f}, {0.5f, 0.5f}};
    ReportPage.Sequence s = new ReportPage.Sequence("id<1>", List.of("</script>", "b&c"), 2,
        "full", List.of(new ReportPage.Map(0, 0, map), new ReportPage.Map(0, 1, map),
            new ReportPage.Map(1, -1, map)));
    List<ReportPage.HeadRow> stats = List.of(
        new ReportPage.HeadRow(0, 0, 10, new double[] {0.1, 1, 0.2, 0.3, 0.9, 0, 0.5}),
        new ReportPage.HeadRow(0, 1, 10, new double[] {0.65, 1, 0.2, 0.3, 0.1, 0, 0.5}));
    String html = ReportPage.render("model", stats, 2.0, List.of(s), null);
    assertEquals(2, html.split("</script>", -1).length - 1,
        "a token cannot end the data's or the code's script element");
    assertTrue(html.contains("\"<\\/script>\""), "the data holds the token, escaped for HTML");
    assertTrue(html.contains("&lt;/script&gt;") && html.contains("b&amp;c")
        && html.contains("id&lt;1&gt;"));
    assertEquals(3, html.split("<img ", -1).length - 1);
    assertTrue(html.contains("mean of heads"));
    assertTrue(html.contains("<td>0</td><td>0</td><td>previous-token</td>"));
    assertTrue(html.contains("<td>0</td><td>1</td><td>broad</td>"), "0.65 >= 0.9 ln 2 = 0.62");
  }

  @Test
  void mapTextsAreTheFirstWholeWordsAndNeverHalfAnEmoji() {
    assertEquals("a b c", CorpusMap.firstWords("  a\n b\tc ", 20));
    assertEquals("one two …", CorpusMap.firstWords("one two three", 9));
    String emoji = "x".repeat(9) + "\uD83D\uDE00" + "yyyy";   // no space: cut at the limit
    assertEquals("x".repeat(9) + " …", CorpusMap.firstWords(emoji, 10));
    assertEquals("", CorpusMap.firstWords(null, 10));
  }
}
