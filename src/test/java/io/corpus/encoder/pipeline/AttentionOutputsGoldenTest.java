package io.corpus.encoder.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.model.HeadStatistics;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.MapAnalytics;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Attention analytics on the golden cases, against values computed from PyTorch's own maps:
 * per-head statistics (per sequence and merged over the corpus), rollout, top-k and head-mean
 * maps, and the choice of sequences, layers and heads.
 */
class AttentionOutputsGoldenTest {
  private static final double STATS = 1e-4;

  static List<GoldenCase> cases() {
    return GoldenCase.all();
  }

  private static Dataset<Row> input(GoldenCase c) {
    return SparkInputs.frame(SparkTestSession.get(), c.inputs(), c.masked()).repartition(2);
  }

  private static Map<String, boolean[]> realTokens(GoldenCase c) {
    Map<String, boolean[]> real = new HashMap<>();
    c.inputs().forEach(in -> real.put(in.id(), in.valid()));
    return real;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void statisticsAndRolloutEqualThoseOfPyTorchsMaps(GoldenCase c) {
    Dataset<Row> out = EncoderTransformerTest.transformerFor(c).setBatchTokens(7)
        .setStatsCol("stats").setRolloutCol("rollout").transform(input(c)).cache();
    Map<String, boolean[]> real = realTokens(c);
    double[][] corpusSums = new double[c.layers() * c.heads()][HeadStatistics.COUNT];
    long[] corpusRows = new long[c.layers() * c.heads()];
    for (Row row : out.collectAsList()) {
      String id = row.getAs("id");
      GoldenCase.ExpectedRow expected = expected(c, id);
      List<Row> stats = row.getList(row.fieldIndex("stats"));
      assertEquals(c.layers() * c.heads(), stats.size());
      for (Row s : stats) {
        int layer = s.getInt(0);
        int head = s.getInt(1);
        double[] want = MapAnalytics.statSums(expected.attention()[layer][head], real.get(id));
        long rows = MapAnalytics.realCount(expected.attention()[layer][head].length,
            real.get(id));
        assertEquals(rows, s.getLong(2));
        for (int k = 0; k < HeadStatistics.COUNT; k++) {
          assertEquals(want[k] / rows, s.getDouble(3 + k) / rows, STATS,
              c + " " + id + " layer " + layer + " head " + head + " "
                  + HeadStatistics.Stat.values()[k].column());
          corpusSums[layer * c.heads() + head][k] += want[k];
        }
        corpusRows[layer * c.heads() + head] += rows;
      }
      double[][] rollout = MapAnalytics.rollout(expected.attention(), real.get(id));
      Tolerances.assertMapClose(rollout, SparkInputs.matrix(row.getAs("rollout")),
          c + " " + id + " rollout");
    }
    List<Row> table = HeadStatsTable.of(out, "stats", List.of()).collectAsList();
    assertEquals(c.layers() * c.heads(), table.size());
    for (Row r : table) {
      int m = r.getInt(0) * c.heads() + r.getInt(1);
      assertEquals(corpusRows[m], r.getLong(2));
      for (int k = 0; k < HeadStatistics.COUNT; k++) {
        assertEquals(corpusSums[m][k] / corpusRows[m], r.getDouble(3 + k), STATS,
            c + " corpus mean " + HeadStatistics.Stat.values()[k].column() + " of map " + m);
      }
    }
    out.unpersist();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void topKMapsHoldTheLargestWeightsOfPyTorchsRows(GoldenCase c) {
    int k = 3;
    int lastHead = c.heads() - 1;
    List<Row> rows = EncoderTransformerTest.transformerFor(c).setAttentionCol("attention")
        .setAttentionFormat("top-k").setAttentionTopK(k).setAttentionLayers(new int[] {0})
        .setAttentionHeads(new int[] {lastHead}).transform(input(c)).collectAsList();
    Map<String, boolean[]> real = realTokens(c);
    for (Row row : rows) {
      String id = row.getAs("id");
      List<Row> maps = row.getList(row.fieldIndex("attention"));
      assertEquals(1, maps.size(), "only layer 0, head " + lastHead);
      Row map = maps.get(0);
      assertEquals(0, map.getInt(0));
      assertEquals(lastHead, map.getInt(1));
      double[][] want = expected(c, id).attention()[0][lastHead];
      List<?> keys = map.getList(2);
      List<?> weights = map.getList(3);
      assertEquals(want.length, keys.size());
      boolean[] valid = real.get(id);
      int realCount = MapAnalytics.realCount(want.length, valid);
      for (int i = 0; i < want.length; i++) {
        List<?> rowKeys = list(keys.get(i));
        List<?> rowWeights = list(weights.get(i));
        if (valid != null && !valid[i]) {
          assertTrue(rowKeys.isEmpty(), "a padding row has no top keys");
          continue;
        }
        double[] sorted = Arrays.stream(want[i]).boxed().sorted((a, b) -> Double.compare(b, a))
            .mapToDouble(Double::doubleValue).toArray();
        assertEquals(Math.min(k, realCount), rowKeys.size());
        for (int j = 0; j < rowKeys.size(); j++) {
          int key = ((Number) rowKeys.get(j)).intValue();
          double w = ((Number) rowWeights.get(j)).doubleValue();
          assertEquals(sorted[j], w, Tolerances.ATTENTION, c + " " + id + " row " + i + " #" + j);
          assertEquals(want[i][key], w, Tolerances.ATTENTION, c + " " + id + " row " + i
              + " key " + key);
        }
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void averageHeadsIsTheMeanOfTheKeptHeadsOfPyTorchsMaps(GoldenCase c) {
    int[] heads = c.heads() > 1 ? new int[] {0, c.heads() - 1} : new int[] {0};
    List<Row> rows = EncoderTransformerTest.transformerFor(c).setAttentionCol("attention")
        .setAttentionAverageHeads(true).setAttentionHeads(heads).transform(input(c))
        .collectAsList();
    for (Row row : rows) {
      String id = row.getAs("id");
      List<Row> maps = row.getList(row.fieldIndex("attention"));
      assertEquals(c.layers(), maps.size(), "one map per layer");
      for (Row map : maps) {
        int layer = map.getInt(0);
        assertEquals(-1, map.getInt(1));
        double[][][] perHead = expected(c, id).attention()[layer];
        int t = perHead[0].length;
        double[][] mean = new double[t][t];
        for (int h : heads) {
          for (int i = 0; i < t; i++) {
            for (int j = 0; j < t; j++) {
              mean[i][j] += perHead[h][i][j] / heads.length;
            }
          }
        }
        zeroPadding(mean, realTokens(c).get(id));
        Tolerances.assertMapClose(mean, SparkInputs.matrix(map.get(2)),
            c + " " + id + " layer " + layer + " mean of heads");
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void sampleAndIdsChooseExactlyTheirSequences(GoldenCase c) {
    List<String> ids = c.inputs().stream().map(GoldenCase.InputRow::id).toList();
    String chosen = ids.get(ids.size() - 1);
    assertEquals(Set.of(chosen), keptIds(c, EncoderTransformerTest.transformerFor(c)
        .setAttentionIds(new String[] {chosen})));
    for (double sample : new double[] {0.3, 0.7}) {
      Set<String> expected = ids.stream()
          .filter(id -> AttentionOutputs.unitHash(id) < sample).collect(Collectors.toSet());
      assertEquals(expected, keptIds(c, EncoderTransformerTest.transformerFor(c)
          .setAttentionSample(sample)), "sample " + sample);
    }
  }

  /** Ids with maps, checking that exactly those have rollout too. */
  private static Set<String> keptIds(GoldenCase c, EncoderTransformer t) {
    Set<String> withMaps = new HashSet<>();
    for (Row row : t.setAttentionCol("attention").setRolloutCol("rollout").transform(input(c))
        .collectAsList()) {
      String id = row.getAs("id");
      boolean maps = !row.getList(row.fieldIndex("attention")).isEmpty();
      if (maps) {
        withMaps.add(id);
      } else {
        assertNull(row.getAs("rollout"), id + " has rollout but no maps");
      }
    }
    return withMaps;
  }

  private static void zeroPadding(double[][] m, boolean[] real) {
    if (real == null) {
      return;
    }
    for (int i = 0; i < m.length; i++) {
      for (int j = 0; j < m.length; j++) {
        if (!real[i] || !real[j]) {
          m[i][j] = 0;
        }
      }
    }
  }

  private static GoldenCase.ExpectedRow expected(GoldenCase c, String id) {
    return c.expected().stream().filter(e -> e.id().equals(id)).findFirst().orElseThrow();
  }

  private static List<?> list(Object value) {
    if (value instanceof List<?> l) {
      return l;
    }
    return new ArrayList<>(scala.jdk.javaapi.CollectionConverters.asJava(
        (scala.collection.Seq<?>) value));
  }
}
