package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.hex;
import static org.apache.spark.sql.functions.lower;

import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.config.InputKind;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.io.ParquetFooters;
import io.corpus.encoder.report.Analytics;
import io.corpus.encoder.report.CorpusMap;
import io.corpus.encoder.report.ReportPage;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.StringType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a job's output folder (head-stats/, attention/ and attention-norms/, rollout/,
 * head-importance/, embeddings/ for the tokens and the corpus map; another run's to compare) and
 * writes report/index.html into it: the Spark side of {@link ReportPage},
 * which draws.
 */
final class AttentionReport {
  private static final Logger LOG = LoggerFactory.getLogger(AttentionReport.class);

  private AttentionReport() {}

  /** Writes {@code folder}/report/index.html and returns its path. */
  static String write(SparkSession spark, String folder, JobSettings settings, String title) {
    return write(spark, folder, settings, title, null);
  }

  /**
   * Writes {@code folder}/report/index.html, with a comparison against the output folder
   * {@code other} (null for none), and returns its path.
   */
  static String write(SparkSession spark, String folder, JobSettings settings, String title,
      String other) {
    long start = System.nanoTime();
    Configuration hadoop = spark.sparkContext().hadoopConfiguration();
    ReportTables.Statistics statistics = ReportTables.statistics(spark, folder, hadoop);
    List<ReportPage.HeadRow> stats = statistics.overall();
    double meanLength = 0;
    if (!stats.isEmpty()) {
      long sequences = ParquetFooters.rowCountOfFolder(folder + "/embeddings", hadoop);
      meanLength = sequences == 0 ? 0 : (double) stats.get(0).rows() / sequences;
    }
    List<ReportPage.Sequence> sequences = new ArrayList<>();
    for (AttentionOutputs.Measure measure : AttentionOutputs.Measure.values()) {
      if (exists(folder + "/" + measure.table(), hadoop)) {
        sequences.addAll(sequences(spark, folder, settings, hadoop, measure));
      }
    }
    long headView = System.nanoTime();
    CorpusMap map = CorpusMapTable.collect(spark, folder, settings);
    long mapped = System.nanoTime();
    Analytics.Importance importance = ReportTables.importance(spark, folder, hadoop);
    Analytics analytics = new Analytics(statistics.groups(), importance, other == null ? null
        : ReportTables.compare(spark, folder, stats, importance, other, settings, hadoop));
    String html = ReportPage.render(title, stats, meanLength, sequences, map, analytics);
    String page = folder + "/report/index.html";
    Path path = new Path(page);
    try {
      FileSystem fs = path.getFileSystem(hadoop);
      try (OutputStream out = fs.create(path, true)) {
        out.write(html.getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + page, e);
    }
    LOG.info(String.format(Locale.ROOT, "report: statistics and head view %.2f s (%d sequences),"
        + " corpus map %.2f s, page %.2f s (%,d bytes)",
        (headView - start) / 1e9, sequences.size(), (mapped - headView) / 1e9,
        (System.nanoTime() - mapped) / 1e9, html.length()));
    return page;
  }

  private static final String ID_TEXT = "__id_text";

  /** Of texts cut into windows (a chunk column), the first window of each: one map per id. */
  static Dataset<Row> firstWindows(Dataset<Row> table) {
    return Arrays.asList(table.columns()).contains(InputKind.CHUNK_COLUMN)
        ? table.where(col(InputKind.CHUNK_COLUMN).equalTo(0)) : table;
  }

  /** The id as the job names it everywhere: lower-case hexadecimal for binary ids. */
  static Column idText(Dataset<Row> table, String id) {
    boolean binary = table.schema().apply(id).dataType() instanceof BinaryType;
    return binary ? lower(hex(col(id))) : col(id).cast("string");
  }

  /**
   * The first report.sequences ids (as strings, sorted) that have maps, with their maps of every
   * written layer and head (top-k maps made dense, 0 outside the k) and their rollout, each cut
   * to report.max-tokens.
   */
  private static List<ReportPage.Sequence> sequences(SparkSession spark, String folder,
      JobSettings settings, Configuration hadoop, AttentionOutputs.Measure measure) {
    Dataset<Row> attention = firstWindows(spark.read().parquet(folder + "/" + measure.table()));
    boolean topK = Arrays.asList(attention.columns()).contains("top_keys");
    String id = settings.input().idColumn();
    int limit = settings.output().report().maxTokens();
    List<String> ids = firstIds(attention, settings);
    if (ids.isEmpty()) {
      return List.of();
    }
    Map<String, List<String>> tokens = tokens(spark, folder, settings, ids);
    Map<String, List<ReportPage.Map>> maps = new HashMap<>();
    Map<String, Integer> lengths = new HashMap<>();
    for (Row r : chosen(attention, id, ids).orderBy(col("layer"), col("head")).collectAsList()) {
      String key = r.getAs(ID_TEXT);
      float[][] weights = topK ? dense(r, limit)
          : matrix(r.getList(r.fieldIndex("weights")), limit);
      lengths.put(key, topK ? r.getList(r.fieldIndex("top_keys")).size()
          : r.getList(r.fieldIndex("weights")).size());
      maps.computeIfAbsent(key, k -> new ArrayList<>())
          .add(new ReportPage.Map(r.getAs("layer"), r.getAs("head"), weights));
    }
    if (exists(folder + "/rollout", hadoop)) {
      Dataset<Row> rollout = firstWindows(spark.read().parquet(folder + "/rollout"));
      for (Row r : chosen(rollout, id, ids).collectAsList()) {
        maps.computeIfAbsent(r.getAs(ID_TEXT), k -> new ArrayList<>()).add(new ReportPage.Map(
            ReportPage.ROLLOUT, -1, matrix(r.getList(r.fieldIndex("weights")), limit)));
      }
    }
    List<ReportPage.Sequence> out = new ArrayList<>();
    for (String key : ids) {
      out.add(new ReportPage.Sequence(key, tokens.get(key), lengths.getOrDefault(key, 0),
          topK ? "top-k" : "full", measure.configName(), maps.getOrDefault(key, List.of())));
    }
    return out;
  }

  /**
   * The first report.sequences ids, as text, in sort order. Each id has one map of the first
   * written layer and head: only that layer's files are read (a partition), and only their ids.
   */
  private static List<String> firstIds(Dataset<Row> attention, JobSettings settings) {
    AttentionOutputs kept = settings.output().attention();
    int layer = kept.layers().isEmpty() ? 0 : Collections.min(kept.layers());
    int head = kept.averageHeads() ? -1
        : kept.heads().isEmpty() ? 0 : Collections.min(kept.heads());
    return attention.where(col("layer").equalTo(layer).and(col("head").equalTo(head)))
        .select(idText(attention, settings.input().idColumn()).as("id")).orderBy("id")
        .limit(settings.output().report().sequences()).collectAsList().stream()
        .map(r -> r.getString(0)).toList();
  }

  /** The rows of these ids, with the id as text in ID_TEXT. */
  private static Dataset<Row> chosen(Dataset<Row> table, String id, List<String> ids) {
    // a string id is filtered as it is, which Parquet can use to skip row groups
    Column match = table.schema().apply(id).dataType() instanceof StringType
        ? col(id).isin(ids.toArray()) : idText(table, id).isin(ids.toArray());
    return table.where(match).withColumn(ID_TEXT, idText(table, id));
  }

  /** The first {@code limit} rows and columns of a (T, T) map. */
  private static float[][] matrix(List<?> rows, int limit) {
    int shown = Math.min(limit, rows.size());
    float[][] weights = new float[shown][shown];
    for (int i = 0; i < shown; i++) {
      List<?> row = toList(rows.get(i));
      for (int j = 0; j < shown; j++) {
        weights[i][j] = ((Number) row.get(j)).floatValue();
      }
    }
    return weights;
  }

  /** A top-k map (top_keys, top_weights per query) as a dense (T, T) one, cut to limit. */
  private static float[][] dense(Row r, int limit) {
    List<?> keys = r.getList(r.fieldIndex("top_keys"));
    List<?> values = r.getList(r.fieldIndex("top_weights"));
    int shown = Math.min(limit, keys.size());
    float[][] weights = new float[shown][shown];
    for (int i = 0; i < shown; i++) {
      List<?> k = toList(keys.get(i));
      List<?> w = toList(values.get(i));
      for (int p = 0; p < k.size(); p++) {
        int j = ((Number) k.get(p)).intValue();
        if (j < shown) {
          weights[i][j] = ((Number) w.get(p)).floatValue();
        }
      }
    }
    return weights;
  }

  private static Map<String, List<String>> tokens(SparkSession spark, String folder,
      JobSettings settings, List<String> ids) {
    String column = settings.input().labelsColumn();
    Map<String, List<String>> byId = new HashMap<>();
    if (column.isEmpty()) {
      return byId;
    }
    String id = settings.input().idColumn();
    Dataset<Row> embeddings = firstWindows(spark.read().parquet(folder + "/embeddings"));
    for (Row r : chosen(embeddings, id, ids).select(col(ID_TEXT), col(column)).collectAsList()) {
      if (!r.isNullAt(1)) {
        List<String> values = new ArrayList<>();
        for (Object o : r.getList(1)) {
          values.add(o == null ? "" : o.toString());
        }
        byId.put(r.getString(0), values);
      }
    }
    return byId;
  }

  private static List<?> toList(Object value) {
    if (value instanceof List<?> l) {
      return l;
    }
    return scala.jdk.javaapi.CollectionConverters.asJava((scala.collection.Seq<?>) value);
  }

  static boolean exists(String path, Configuration hadoop) {
    Path p = new Path(path);
    try {
      return p.getFileSystem(hadoop).exists(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
