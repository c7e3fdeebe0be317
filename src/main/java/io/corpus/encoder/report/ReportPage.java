package io.corpus.encoder.report;

import io.corpus.encoder.model.HeadStatistics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * The report as one self-contained HTML page that opens offline from disk: styles, script and
 * data are inline (no network), heatmaps are PNG data URIs. Three interactive views, drawn by the
 * page's script ({@code report.js} and the views' files beside it) from the data
 * {@link ReportData} packs: the head view (a sequence's tokens in two columns, lines weighted by
 * a layer's heads' attention), the corpus map (pooled vectors in 2-D) and the neighbours
 * (nearest rows, near duplicates). Then the static
 * tables for printing: per-head statistics, head labels and each sequence's heatmaps. On load,
 * the script records on {@code <body>} how many images loaded ({@code data-images}), how many
 * errors occurred ({@code data-errors}) and when the views were drawn ({@code data-ready}, ms),
 * which tests and the benchmark read back from a headless browser.
 */
public final class ReportPage {
  /** One head's mean statistics, in {@link HeadStatistics.Stat} order. */
  public record HeadRow(int layer, int head, long rows, double[] means) {
    /** What {@link HeadLabels} calls this head, for sequences of {@code meanLength} tokens. */
    List<String> labels(double meanLength) {
      return HeadLabels.of(mean(HeadStatistics.Stat.ENTROPY),
          mean(HeadStatistics.Stat.FIRST_TOKEN), mean(HeadStatistics.Stat.SELF),
          mean(HeadStatistics.Stat.PREVIOUS), mean(HeadStatistics.Stat.NEXT),
          Math.log(Math.max(1, meanLength)));
    }

    private double mean(HeadStatistics.Stat stat) {
      return means[stat.ordinal()];
    }
  }

  /** One map of a sequence: (T, T) weights, already cut to the tokens shown. */
  public record Map(int layer, int head, float[][] weights) {}

  /**
   * A sequence whose maps are drawn; tokens may be null (positions are shown instead). Maps of
   * layer {@link #ROLLOUT} are its attention rollout; head −1 is a mean of heads.
   *
   * @param format the maps' format as written: full or top-k (the weights outside the k are 0)
   */
  public record Sequence(String id, List<String> tokens, int length, String format,
      String measure, List<Map> maps) {
    /** A sequence's attention weights. */
    public Sequence(String id, List<String> tokens, int length, String format, List<Map> maps) {
      this(id, tokens, length, format, "weights", maps);
    }
  }

  /** The page's script, in order, joined inside one function (report.js says why). */
  private static final List<String> SCRIPTS = List.of("report.js", "head-view.js",
      "corpus-map.js", "neighbours.js", "analytics.js");

  /** The layer number the rollout's map is given in {@link Map}. */
  public static final int ROLLOUT = -1;

  private static final int IMAGE_PIXELS = 448;

  private ReportPage() {}

  /**
   * @param title what ran (model and data), shown under the heading
   * @param stats per-head means, or empty when statistics were not computed
   * @param meanLength mean real tokens per sequence, for the broad-head rule (ln T)
   * @param map the corpus map, or null for none
   */
  public static String render(String title, List<HeadRow> stats, double meanLength,
      List<Sequence> sequences, CorpusMap map) {
    return render(title, stats, meanLength, sequences, map, Analytics.NONE);
  }

  /** As above, with the statistics by group, the heads' importance and a comparison. */
  public static String render(String title, List<HeadRow> stats, double meanLength,
      List<Sequence> sequences, CorpusMap map, Analytics analytics) {
    StringBuilder html = new StringBuilder();
    html.append("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<title>Attention report</title>\n<style>").append(resource("report.css"))
        .append("</style></head>\n")
        .append("<body data-images=\"pending\" data-errors=\"0\" data-ready=\"\">\n")
        .append("<h1>Attention report</h1>\n<p>").append(escape(title)).append("</p>\n")
        .append(resource("report.html"));
    html.append("<section id=\"tables\"><h2>Tables for printing</h2>\n");
    if (!stats.isEmpty()) {
      statistics(html, stats);
      labels(html, stats, meanLength);
    }
    for (Sequence s : sequences) {
      sequence(html, s);
    }
    html.append("</section>\n<script type=\"application/json\" id=\"report-data\">")
        .append(ReportData.json(stats, meanLength, sequences, map, analytics))
        .append("</script>\n")
        .append("<script>\n(function () {\n");
    for (String script : SCRIPTS) {
      html.append(resource(script));
    }
    html.append("})();\n</script>\n</body></html>\n");
    return html.toString();
  }

  private static String resource(String name) {
    try (var in = ReportPage.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("The report's " + name + " is missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void statistics(StringBuilder html, List<HeadRow> stats) {
    int layers = stats.stream().mapToInt(HeadRow::layer).max().orElse(-1) + 1;
    int heads = stats.stream().mapToInt(HeadRow::head).max().orElse(-1) + 1;
    html.append("<h2>Per-head statistics</h2>\n<p>Means over ").append(stats.get(0).rows())
        .append(" query rows (every real token of every sequence), per layer (rows) and head ")
        .append("(columns). Darker is larger within each grid.</p>\n");
    HeadStatistics.Stat[] all = HeadStatistics.Stat.values();
    for (int s = 0; s < all.length; s++) {
      double min = Double.POSITIVE_INFINITY;
      double max = Double.NEGATIVE_INFINITY;
      double[][] grid = new double[layers][heads];
      for (HeadRow row : stats) {
        double v = row.means()[s];
        grid[row.layer()][row.head()] = v;
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
      html.append("<h3>").append(all[s].column()).append("</h3>\n<table class=\"grid\"><tr><th>")
          .append("</th>");
      for (int h = 0; h < heads; h++) {
        html.append("<th>head ").append(h).append("</th>");
      }
      html.append("</tr>\n");
      for (int l = 0; l < layers; l++) {
        html.append("<tr><th>layer ").append(l).append("</th>");
        for (int h = 0; h < heads; h++) {
          double v = grid[l][h];
          float fraction = max > min ? (float) ((v - min) / (max - min)) : 0f;
          html.append("<td style=\"background:#")
              .append(String.format("%06x", HeatmapPng.color(fraction)))
              .append(fraction > 0.55f ? ";color:#fff" : "").append("\">")
              .append(String.format(Locale.ROOT, "%.3f", v)).append("</td>");
        }
        html.append("</tr>\n");
      }
      html.append("</table>\n");
    }
  }

  private static void labels(StringBuilder html, List<HeadRow> stats, double meanLength) {
    html.append("<h2>Head labels</h2>\n<p>broad: entropy at least ")
        .append(HeadLabels.BROAD_FRACTION).append(" × ln T (T = ")
        .append(String.format(Locale.ROOT, "%.1f", meanLength))
        .append(" tokens on average); previous-, next-, first-token and self: mean mass there ")
        .append("above ").append(HeadLabels.MASS).append(".</p>\n<table class=\"labels\">")
        .append("<tr><th>layer</th><th>head</th><th>labels</th></tr>\n");
    int labelled = 0;
    for (HeadRow row : stats) {
      List<String> labels = row.labels(meanLength);
      if (!labels.isEmpty()) {
        labelled++;
        html.append("<tr><td>").append(row.layer()).append("</td><td>").append(row.head())
            .append("</td><td>").append(String.join(", ", labels)).append("</td></tr>\n");
      }
    }
    if (labelled == 0) {
      html.append("<tr><td colspan=\"3\">no head meets a rule</td></tr>\n");
    }
    html.append("</table>\n");
  }

  private static void sequence(StringBuilder html, Sequence s) {
    html.append("<h2>Sequence ").append(escape(s.id())).append("</h2>\n");
    int shown = s.maps().isEmpty() ? 0 : s.maps().get(0).weights().length;
    if (shown < s.length()) {
      html.append("<p>The first ").append(shown).append(" of ").append(s.length())
          .append(" tokens.</p>\n");
    }
    int cell = Math.max(4, Math.min(14, IMAGE_PIXELS / Math.max(1, shown)));
    int previousLayer = Integer.MIN_VALUE;
    for (Map map : s.maps()) {
      if (map.layer() != previousLayer) {
        if (previousLayer != Integer.MIN_VALUE) {
          html.append("</div>\n");
        }
        html.append("<h3>").append(map.layer() == ROLLOUT ? "rollout" : "layer " + map.layer())
            .append(s.format().equals("top-k") && map.layer() != ROLLOUT ? " (top-k: other "
                + "weights shown as 0)" : "").append("</h3>\n<div class=\"maps\">\n");
        previousLayer = map.layer();
      }
      String png = Base64.getEncoder().encodeToString(HeatmapPng.render(map.weights(), cell));
      String name = map.layer() == ROLLOUT ? "rollout"
          : map.head() < 0 ? "mean of heads" : "head " + map.head();
      html.append("<figure><div class=\"map\" style=\"grid-template-columns:auto ")
          .append(shown * cell).append("px\"><div class=\"y\">");
      axis(html, s, shown, cell);
      html.append("</div><img alt=\"").append(escape(s.id())).append(" layer ")
          .append(map.layer()).append(' ').append(name).append("\" src=\"data:image/png;base64,")
          .append(png).append("\"><div></div><div class=\"x\">");
      axis(html, s, shown, cell);
      html.append("</div></div><figcaption>").append(name).append(" (rows: queries, columns: ")
          .append("keys)</figcaption></figure>\n");
    }
    if (previousLayer != Integer.MIN_VALUE) {
      html.append("</div>\n");
    }
  }

  private static void axis(StringBuilder html, Sequence s, int shown, int cell) {
    int font = Math.max(5, Math.min(11, cell - 1));
    for (int t = 0; t < shown; t++) {
      String label = s.tokens() != null && t < s.tokens().size() && s.tokens().get(t) != null
          ? s.tokens().get(t) : String.valueOf(t);
      html.append("<span style=\"height:").append(cell).append("px;width:").append(cell)
          .append("px;font-size:").append(font).append("px\">").append(escape(label))
          .append("</span>");
    }
  }

  static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
