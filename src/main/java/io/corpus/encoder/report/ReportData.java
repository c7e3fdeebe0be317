package io.corpus.encoder.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.model.HeadStatistics;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The numbers the page's script draws, as one compact JSON object: arrays of numbers are packed
 * as base64 of little-endian float32 or int32 (a browser's typed arrays read them as they are),
 * strings stay strings. Keys: {@code stats} (per-head means and labels), {@code groups} (the same
 * per group of stats-by), {@code sequences} (the head view's maps), {@code map} (the corpus map
 * and its neighbours), {@code importance} and {@code compare} (absent without them).
 */
final class ReportData {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ReportData() {}

  static String json(List<ReportPage.HeadRow> stats, double meanLength,
      List<ReportPage.Sequence> sequences, CorpusMap map, Analytics analytics) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("stats", stats(stats, meanLength));
    List<Object> groups = new ArrayList<>();
    for (Analytics.Group g : analytics.groups()) {
      groups.add(Map.of("label", g.label(), "stats", stats(g.heads(), meanLength)));
    }
    data.put("groups", groups);
    Analytics.Importance importance = analytics.importance();
    if (importance != null) {
      data.put("importance", Map.of("layers", importance.layers(), "heads", importance.heads(),
          "rows", importance.rows(), "values", floats(toFloats(importance.values()))));
    }
    if (analytics.comparison() != null) {
      data.put("compare", comparison(analytics.comparison()));
    }
    List<Object> packed = new ArrayList<>();
    for (ReportPage.Sequence s : sequences) {
      packed.add(sequence(s));
    }
    data.put("sequences", packed);
    if (map != null) {
      data.put("map", map(map));
    }
    try {
      // "</" would end the <script> element the JSON sits in
      return JSON.writeValueAsString(data).replace("</", "<\\/");
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Map<String, Object> stats(List<ReportPage.HeadRow> rows, double meanLength) {
    List<String> columns = new ArrayList<>();
    for (HeadStatistics.Stat s : HeadStatistics.Stat.values()) {
      columns.add(s.column());
    }
    List<Object> heads = new ArrayList<>();
    for (ReportPage.HeadRow r : rows) {
      heads.add(Map.of("layer", r.layer(), "head", r.head(), "means", r.means(),
          "labels", r.labels(meanLength)));
    }
    return Map.of("columns", columns, "heads", heads);
  }

  /** One sequence: its tokens and, per map, layer, head and the (n, n) weights shown. */
  private static Map<String, Object> sequence(ReportPage.Sequence s) {
    List<Object> maps = new ArrayList<>();
    for (ReportPage.Map m : s.maps()) {
      int n = m.weights().length;
      float[] flat = new float[n * n];
      for (int i = 0; i < n; i++) {
        System.arraycopy(m.weights()[i], 0, flat, i * n, n);
      }
      maps.add(Map.of("layer", m.layer(), "head", m.head(), "n", n, "weights", floats(flat)));
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", s.id());
    out.put("length", s.length());
    out.put("format", s.format());
    out.put("measure", s.measure());
    out.put("tokens", s.tokens() == null ? List.of() : s.tokens());
    out.put("maps", maps);
    return out;
  }

  private static Map<String, Object> map(CorpusMap map) {
    NearestNeighbours nn = map.neighbours();
    int pairs = nn.duplicates().size();
    int[] first = new int[pairs];
    int[] second = new int[pairs];
    float[] cosine = new float[pairs];
    for (int p = 0; p < pairs; p++) {
      first[p] = nn.duplicates().get(p).first();
      second[p] = nn.duplicates().get(p).second();
      cosine[p] = nn.duplicates().get(p).cosine();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("rows", map.rows());
    out.put("colorColumn", map.colorColumn());
    out.put("ids", map.ids());
    out.put("texts", map.texts());
    out.put("colors", map.colors());
    out.put("x", floats(map.x()));
    out.put("y", floats(map.y()));
    out.put("k", nn.k());
    out.put("neighbours", ints(nn.neighbours()));
    out.put("scores", floats(nn.scores()));
    out.put("duplicatesAbove", map.duplicatesAbove());
    out.put("duplicateCount", nn.duplicateCount());
    out.put("duplicates", Map.of("first", ints(first), "second", ints(second),
        "cosine", floats(cosine)));
    return out;
  }

  private static Map<String, Object> comparison(Analytics.Comparison c) {
    List<String> stats = new ArrayList<>();
    for (HeadStatistics.Stat s : HeadStatistics.Stat.values()) {
      stats.add(s.column());
    }
    List<String> differences = new ArrayList<>();
    for (double[] grid : c.statistics()) {
      differences.add(floats(toFloats(grid)));
    }
    List<Object> moved = new ArrayList<>();
    for (Analytics.Moved m : c.moved()) {
      moved.add(Map.of("id", m.id(), "text", m.text() == null ? "" : m.text(),
          "cosine", m.cosine()));
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("other", c.other());
    out.put("layers", c.layers());
    out.put("heads", c.heads());
    out.put("columns", c.statistics().isEmpty() ? List.of() : stats);
    out.put("statistics", differences);
    out.put("importance", c.importance() == null ? "" : floats(toFloats(c.importance())));
    out.put("rows", c.rows());
    out.put("histogram", c.histogram());
    out.put("low", c.low());
    out.put("moved", moved);
    return out;
  }

  private static float[] toFloats(double[] values) {
    float[] out = new float[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = (float) values[i];
    }
    return out;
  }

  static String floats(float[] values) {
    ByteBuffer bytes = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
    bytes.asFloatBuffer().put(values);
    return Base64.getEncoder().encodeToString(bytes.array());
  }

  static String ints(int[] values) {
    ByteBuffer bytes = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
    bytes.asIntBuffer().put(values);
    return Base64.getEncoder().encodeToString(bytes.array());
  }
}
