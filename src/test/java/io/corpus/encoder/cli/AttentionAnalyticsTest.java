package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.model.HeadStatistics;
import io.corpus.encoder.model.ReferenceEncoder;
import io.corpus.encoder.model.TokenBatch;
import io.corpus.encoder.model.TokenEmbeddings;
import io.corpus.encoder.pipeline.LoadedModel;
import io.corpus.encoder.testing.MapAnalytics;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.weights.ModelFolder;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.IntStream;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The analytics of attention on all-MiniLM-L6-v2 and texts of several scripts, lengths and
 * groups, against a float64 port of their definitions ({@link ReferenceEncoder}): norm-based maps
 * (full, top-k, averaged) within 1e-4 of the largest value, statistics grouped by one and two
 * columns (a null group among them) as today's, and head importances, of every row and of a
 * sample, within 1e-4 of the largest.
 */
class AttentionAnalyticsTest {
  /** Language (null for none), length band, text. */
  private static final Object[][] TEXTS = {
      {"en", 0, "The cat sat."},
      {"en", 0, "Rain again today."},
      {"en", 1, "A quick brown fox jumps over the lazy dog near the river bank, then rests."},
      {"en", 1, "Attention maps show which tokens each head reads when it builds a vector."},
      {"en", 2, "Corpora are large and grow: a killed job resumes, and a table that changed is "
          + "updated by encoding only what changed, while the statistics merge exactly."},
      {"de", 0, "Guten Morgen!"},
      {"de", 1, "Die Katze schläft auf dem warmen Fensterbrett in der Sonne."},
      {"fr", 1, "Le chat dort sur le rebord de la fenêtre, au soleil."},
      {"ru", 0, "Привет, мир."},
      {"ru", 1, "Кошка спит на тёплом подоконнике под солнцем весь день."},
      {"el", 0, "Καλημέρα κόσμε."},
      {"el", 1, "Η γάτα κοιμάται στο ζεστό περβάζι του παραθύρου."},
      {"zh", 0, "你好，世界。"},
      {"zh", 1, "猫在温暖的窗台上睡觉，阳光照在它身上。"},
      {"ja", 1, "猫は暖かい窓辺で眠っています。"},
      {"ar", 0, "مرحبا بالعالم"},
      {"ar", 1, "القطة نائمة على حافة النافذة الدافئة في الشمس."},
      {"hi", 1, "बिल्ली धूप में खिड़की पर सो रही है।"},
      {null, 0, "ok"},
      {null, 1, "Numbers 12345 and symbols #$% mixed with words."},
      {null, 2, "Mixed scripts: the word кошка, the word γάτα and the word 猫 all mean cat, and "
          + "a long sentence keeps the heads busy for a while longer."},
      {"en", 2, "Sentence transformers strip every text before tokenizing it, and the vectors "
          + "they write are the mean of the last hidden states over the real tokens."},
      {"ko", 1, "고양이가 따뜻한 창가에서 자고 있어요."},
      {"en", 0, "Yes."},
  };
  private static final double NORMS_RELATIVE = 1e-4;

  @TempDir
  static Path tmp;
  private static Path input;
  private static LoadedModel model;

  @BeforeAll
  static void writeInput() {
    SparkSession spark = SparkTestSession.get();
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < TEXTS.length; i++) {
      rows.add(RowFactory.create(String.format("t%02d", i), TEXTS[i][2], TEXTS[i][0],
          TEXTS[i][1]));
    }
    StructType schema = new StructType().add("id", DataTypes.StringType)
        .add("text", DataTypes.StringType).add("lang", DataTypes.StringType)
        .add("band", DataTypes.IntegerType);
    input = tmp.resolve("texts.parquet");
    spark.createDataFrame(rows, schema).coalesce(1).write().parquet(input.toString());
    ModelFolder folder = ModelFolder.read(SharedModels.miniLm());
    model = LoadedModel.fromFolder(folder, folder.settings());
  }

  /**
   * Runs the job into the one output folder both tests write (the second run replaces the
   * first's output, attention-norms/ and head-importance/ among it).
   */
  private static Path run(String name, String attention) throws Exception {
    Path output = tmp.resolve("out");
    Path config = tmp.resolve(name + ".conf");
    Files.writeString(config, String.join("\n",
        "input.path = \"" + input + "\"", "input.text-column = text",
        "model.path = \"" + SharedModels.miniLm() + "\"", "output.path = \"" + output + "\"",
        "output.mode = overwrite", "execution.progress = false",
        "output.attention { " + attention + " }", ""));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = new EncodeCommand(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString()});
    assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
    return output;
  }

  /** Each row's token ids, as the job wrote them, by id. */
  private static Map<String, int[]> ids(Path output) {
    Map<String, int[]> ids = new HashMap<>();
    for (Row r : SparkTestSession.get().read().parquet(output.resolve("embeddings").toString())
        .select("id", "input_ids").collectAsList()) {
      ids.put(r.getString(0), r.<Integer>getList(1).stream().mapToInt(Integer::intValue)
          .toArray());
    }
    return ids;
  }

  /** The embedding layer's (T, E) output for the ids: what the encoder layers read. */
  private static float[][] embedded(int[] ids) {
    int width = model.weights().encoder().width();
    TokenBatch batch = new TokenBatch(width, ids.length);
    new TokenEmbeddings(model.weights().embeddings(),
        model.settings().architecture().norms().eps())
        .append(ids, batch);
    batch.endSequence();
    float[][] rows = new float[ids.length][];
    for (int t = 0; t < ids.length; t++) {
      rows[t] = Arrays.copyOfRange(batch.tokens(), t * width, (t + 1) * width);
    }
    return rows;
  }

  private static ReferenceEncoder reference() {
    return new ReferenceEncoder(model.settings(), model.weights().encoder());
  }

  /** The float64 port's outputs and importances by token ids: both tests read the same texts. */
  private static final Map<String, ReferenceEncoder.Result> ENCODED = new HashMap<>();
  private static final Map<String, double[]> IMPORTANCES = new HashMap<>();

  private static ReferenceEncoder.Result referenceOf(int[] ids) {
    return ENCODED.computeIfAbsent(Arrays.toString(ids),
        k -> reference().encode(embedded(ids), null));
  }

  private static double[] referenceImportance(int[] ids) {
    return IMPORTANCES.computeIfAbsent(Arrays.toString(ids),
        k -> reference().importance(embedded(ids), AttentionAnalyticsTest::meanPooled));
  }

  /** Norm-based map of a layer and head: α_ij · ‖f_h(x_j)‖. */
  private static double[][] normMap(ReferenceEncoder.Result r, int layer, int head) {
    double[][] a = r.attention()[layer][head];
    double[][] m = new double[a.length][a.length];
    for (int i = 0; i < a.length; i++) {
      for (int j = 0; j < a.length; j++) {
        m[i][j] = a[i][j] * r.valueNorms()[layer][head][j];
      }
    }
    return m;
  }

  /** all-MiniLM-L6-v2's sentence vector of (T, E) final states: their mean. */
  private static double[] meanPooled(double[][] states) {
    double[] mean = new double[states[0].length];
    for (double[] row : states) {
      for (int e = 0; e < mean.length; e++) {
        mean[e] += row[e] / states.length;
      }
    }
    return mean;
  }

  private static double largest(Iterable<double[][]> maps) {
    double largest = 0;
    for (double[][] m : maps) {
      for (double[] row : m) {
        for (double v : row) {
          largest = Math.max(largest, Math.abs(v));
        }
      }
    }
    return largest;
  }

  @Test
  void fullNormMapsStatisticsByLanguageAndASampleOfImportancesEqualTheDefinitions()
      throws Exception {
    SparkSession spark = SparkTestSession.get();
    Path output = run("full", "enabled = true, measure = norms, stats = true, "
        + "stats-by = [lang], importance = true, importance-sample = 0.5");
    assertFalse(Files.exists(output.resolve("attention")), "norms replace attention/");
    assertEquals(List.of("id", "head", "weights", "layer"), List.of(spark.read()
        .parquet(output.resolve("attention-norms").toString()).columns()));
    Map<String, int[]> ids = ids(output);
    Map<String, ReferenceEncoder.Result> expected = new HashMap<>();
    Map<String, double[][]> expectedMaps = new HashMap<>();
    for (Map.Entry<String, int[]> e : ids.entrySet()) {
      ReferenceEncoder.Result r = referenceOf(e.getValue());
      expected.put(e.getKey(), r);
      for (int l = 0; l < r.attention().length; l++) {
        for (int h = 0; h < r.attention()[l].length; h++) {
          expectedMaps.put(e.getKey() + "/" + l + "/" + h, normMap(r, l, h));
        }
      }
    }
    double tolerance = NORMS_RELATIVE * largest(expectedMaps.values());
    List<Row> written = spark.read().parquet(output.resolve("attention-norms").toString())
        .collectAsList();
    assertEquals(expectedMaps.size(), written.size(), "every layer and head of every row");
    double worst = 0;
    for (Row r : written) {
      String key = r.getAs("id") + "/" + r.getAs("layer") + "/" + r.getAs("head");
      worst = Math.max(worst, assertClose(expectedMaps.get(key),
          SparkInputs.matrix(r.getAs("weights")), tolerance, key));
    }
    System.out.printf("AttentionAnalyticsTest: norm maps' worst |error| %.2e of the largest "
        + "value %.3f%n", worst / largest(expectedMaps.values()), largest(expectedMaps.values()));

    assertGroupedStatistics(output, expected, List.of("lang"));
    assertImportances(output, ids, 0.5, 1);
  }

  @Test
  void topKAndAveragedNormMapsTwoColumnGroupsAndEveryRowsImportance() throws Exception {
    SparkSession spark = SparkTestSession.get();
    List<Integer> heads = List.of(1, 4, 7);
    Path output = run("top-k", "enabled = true, measure = norms, format = top-k, top-k = 3, "
        + "average-heads = true, heads = [1, 4, 7], layers = [0, 5], stats = true, "
        + "stats-by = [lang, band], importance = true");
    Map<String, int[]> ids = ids(output);
    Map<String, ReferenceEncoder.Result> expected = new HashMap<>();
    ids.forEach((id, tokens) -> expected.put(id, referenceOf(tokens)));
    Map<String, double[][]> expectedMaps = new HashMap<>();
    for (Map.Entry<String, int[]> e : ids.entrySet()) {
      ReferenceEncoder.Result r = expected.get(e.getKey());
      for (int l : List.of(0, 5)) {
        int t = e.getValue().length;
        double[][] mean = new double[t][t];
        for (int h : heads) {
          double[][] m = normMap(r, l, h);
          for (int i = 0; i < t; i++) {
            for (int j = 0; j < t; j++) {
              mean[i][j] += m[i][j] / heads.size();
            }
          }
        }
        expectedMaps.put(e.getKey() + "/" + l, mean);
      }
    }
    double tolerance = NORMS_RELATIVE * largest(expectedMaps.values());
    List<Row> written = spark.read().parquet(output.resolve("attention-norms").toString())
        .collectAsList();
    assertEquals(expectedMaps.size(), written.size(), "one averaged map per kept layer and row");
    for (Row r : written) {
      assertEquals(-1, r.<Integer>getAs("head"));
      String key = r.getAs("id") + "/" + r.getAs("layer");
      double[][] mean = expectedMaps.get(key);
      double[][] keys = SparkInputs.matrix(r.getAs("top_keys"));
      double[][] weights = SparkInputs.matrix(r.getAs("top_weights"));
      for (int i = 0; i < mean.length; i++) {
        double[] sorted = mean[i].clone();
        Arrays.sort(sorted);
        assertEquals(Math.min(3, mean.length), weights[i].length, key);
        for (int p = 0; p < weights[i].length; p++) {
          assertEquals(sorted[sorted.length - 1 - p], weights[i][p], tolerance,
              key + " query " + i + ": the " + p + "th largest");
          assertEquals(mean[i][(int) keys[i][p]], weights[i][p], tolerance,
              key + " query " + i + ": the weight at its key");
        }
      }
    }
    assertGroupedStatistics(output, expected, List.of("lang", "band"));
    assertImportances(output, ids, 1.0, 2);
  }

  /**
   * head-stats/ grouped by {@code by}: each group's statistics its rows' sums over its real
   * query rows divided by their count, from the reference's maps; a null language a group.
   */
  private static void assertGroupedStatistics(Path output,
      Map<String, ReferenceEncoder.Result> expected, List<String> by) {
    SparkSession spark = SparkTestSession.get();
    Map<String, String> groupOf = new HashMap<>();
    for (int i = 0; i < TEXTS.length; i++) {
      List<Object> values = new ArrayList<>();
      for (String column : by) {
        values.add(TEXTS[i][column.equals("lang") ? 0 : 1]);
      }
      groupOf.put(String.format("t%02d", i), values.toString());
    }
    int layers = model.weights().encoder().layerCount();
    int heads = model.settings().heads();
    Map<String, double[]> sums = new HashMap<>();
    Map<String, Long> rows = new HashMap<>();
    expected.forEach((id, r) -> {
      for (int l = 0; l < layers; l++) {
        for (int h = 0; h < heads; h++) {
          String key = groupOf.get(id) + "/" + l + "/" + h;
          double[] s = MapAnalytics.statSums(r.attention()[l][h], null);
          double[] total = sums.computeIfAbsent(key, k -> new double[s.length]);
          for (int k = 0; k < s.length; k++) {
            total[k] += s[k];
          }
          rows.merge(key, (long) r.attention()[l][h].length, Long::sum);
        }
      }
    });
    var table = spark.read().parquet(output.resolve("head-stats").toString());
    List<String> columns = new ArrayList<>(by);
    columns.addAll(List.of("layer", "head", "rows"));
    for (HeadStatistics.Stat stat : HeadStatistics.Stat.values()) {
      columns.add(stat.column());
    }
    assertEquals(columns, List.of(table.columns()));
    assertEquals(DataTypes.StringType, table.schema().apply("lang").dataType());
    List<Row> written = table.collectAsList();
    assertEquals(sums.size(), written.size(), "one row per group, layer and head");
    assertEquals(1, table.inputFiles().length, "one file");
    List<Column> keys = new ArrayList<>();
    for (String column : columns.subList(0, by.size() + 2)) {
      keys.add(col(column).asc_nulls_first());
    }
    List<Row> sorted = table.sort(keys.toArray(new Column[0])).collectAsList();
    int misplaced = IntStream.range(0, written.size())
        .filter(i -> !written.get(i).equals(sorted.get(i))).findFirst().orElse(-1);
    assertEquals(-1, misplaced, "the first row written out of the order of the groups, layer "
        + "and head");
    assertTrue(sums.keySet().stream().anyMatch(k -> k.startsWith("[null")), "a null group");
    for (Row r : written) {
      List<Object> group = new ArrayList<>();
      for (String column : by) {
        group.add(r.getAs(column));
      }
      String key = group + "/" + r.getAs("layer") + "/" + r.getAs("head");
      assertEquals(rows.get(key), r.<Long>getAs("rows"), key);
      for (HeadStatistics.Stat stat : HeadStatistics.Stat.values()) {
        assertEquals(sums.get(key)[stat.ordinal()] / rows.get(key),
            r.<Double>getAs(stat.column()), 1e-4, key + " " + stat.column());
      }
    }
  }

  /**
   * The rows measured are those whose id hashes below the sample; head-importance/ holds every
   * layer and head with their count and the mean of their values; the {@code checked}
   * shortest measured rows' values equal the reference's within 1e-4 of the largest.
   */
  private static void assertImportances(Path output, Map<String, int[]> ids, double sample,
      int checked) {
    SparkSession spark = SparkTestSession.get();
    int layers = model.weights().encoder().layerCount();
    int heads = model.settings().heads();
    Map<String, double[]> measured = new HashMap<>();
    for (Row r : spark.read().parquet(output.resolve("embeddings").toString())
        .select("id", "attention_importance").collectAsList()) {
      String id = r.getString(0);
      assertEquals(sample >= 1 || AttentionOutputs.unitHash(id) < sample, !r.isNullAt(1), id);
      if (!r.isNullAt(1)) {
        measured.put(id, r.<Double>getList(1).stream().mapToDouble(Double::doubleValue)
            .toArray());
      }
    }
    assertTrue(measured.size() >= checked && (sample >= 1 || measured.size() < ids.size()),
        measured.size() + " rows measured");
    List<Row> table = spark.read().parquet(output.resolve("head-importance").toString())
        .orderBy("layer", "head").collectAsList();
    assertEquals(layers * heads, table.size(), "every head of every layer");
    for (Row r : table) {
      int at = r.<Integer>getAs("layer") * heads + r.<Integer>getAs("head");
      assertEquals(measured.size(), r.<Long>getAs("rows"));
      double mean = measured.values().stream().mapToDouble(v -> v[at]).sum() / measured.size();
      assertEquals(mean, r.<Double>getAs("importance"), 1e-12, "layer and head " + at);
    }
    List<String> shortest = measured.keySet().stream()
        .sorted(Comparator.comparingInt((String id) -> ids.get(id).length)
            .thenComparing(Comparator.naturalOrder())).limit(checked).toList();
    for (String id : shortest) {
      double[] expected = referenceImportance(ids.get(id));
      double largest = Arrays.stream(expected).map(Math::abs).max().orElseThrow();
      double[] got = measured.get(id);
      double worst = 0;
      for (int at = 0; at < expected.length; at++) {
        assertEquals(expected[at], got[at], 1e-4 * largest, id + " layer " + at / heads
            + " head " + at % heads);
        worst = Math.max(worst, Math.abs(expected[at] - got[at]));
      }
      System.out.printf("AttentionAnalyticsTest: %s's importances (%d tokens) worst |error| "
          + "%.2e of the largest %.4f%n", id, ids.get(id).length, worst / largest, largest);
      assertTrue(largest > 1e-4, id + ": some head matters (" + largest + ")");
    }
  }

  /** Asserts each value within the tolerance; returns the largest error. */
  private static double assertClose(double[][] expected, double[][] got, double tolerance,
      String what) {
    assertEquals(expected.length, Objects.requireNonNull(got, what).length, what);
    double worst = 0;
    for (int i = 0; i < expected.length; i++) {
      for (int j = 0; j < expected.length; j++) {
        assertEquals(expected[i][j], got[i][j], tolerance, what + " [" + i + "][" + j + "]");
        worst = Math.max(worst, Math.abs(expected[i][j] - got[i][j]));
      }
    }
    return worst;
  }
}
