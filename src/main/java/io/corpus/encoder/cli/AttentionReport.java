package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.hex;
import static org.apache.spark.sql.functions.lower;

import io.corpus.encoder.config.InputKind;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.io.ParquetFooters;
import io.corpus.encoder.model.HeadStatistics;
import io.corpus.encoder.report.ReportPage;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.BinaryType;

/**
 * Reads a job's output folder (head-stats/, attention/, embeddings/ for the tokens) and writes
 * report/index.html into it: the Spark side of {@link ReportPage}, which draws.
 */
final class AttentionReport {
  private AttentionReport() {}

  /** Writes {@code folder}/report/index.html and returns its path. */
  static String write(SparkSession spark, String folder, JobSettings settings, String title) {
    Configuration hadoop = spark.sparkContext().hadoopConfiguration();
    List<ReportPage.HeadRow> stats = new ArrayList<>();
    double meanLength = 0;
    if (exists(folder + "/head-stats", hadoop)) {
      for (Row r : spark.read().parquet(folder + "/head-stats").collectAsList()) {
        double[] means = new double[HeadStatistics.COUNT];
        for (int s = 0; s < means.length; s++) {
          means[s] = r.getAs(HeadStatistics.Stat.values()[s].column());
        }
        stats.add(new ReportPage.HeadRow(r.getAs("layer"), r.getAs("head"), r.getAs("rows"),
            means));
      }
      long sequences = ParquetFooters.rowCountOfFolder(folder + "/embeddings", hadoop);
      meanLength = stats.isEmpty() || sequences == 0 ? 0 : (double) stats.get(0).rows() / sequences;
    }
    List<ReportPage.Sequence> sequences = exists(folder + "/attention", hadoop)
        ? sequences(spark, folder, settings) : List.of();
    String html = ReportPage.render(title, stats, meanLength, sequences);
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
    return page;
  }

  private static final String ID_TEXT = "__id_text";

  /** Of texts cut into windows (a chunk column), the first window of each: one map per id. */
  private static Dataset<Row> firstWindows(Dataset<Row> table) {
    return Arrays.asList(table.columns()).contains(InputKind.CHUNK_COLUMN)
        ? table.where(col(InputKind.CHUNK_COLUMN).equalTo(0)) : table;
  }

  /** The id as the job names it everywhere: lower-case hexadecimal for binary ids. */
  private static Column idText(Dataset<Row> table, String id) {
    boolean binary = table.schema().apply(id).dataType() instanceof BinaryType;
    return binary ? lower(hex(col(id))) : col(id).cast("string");
  }

  /** The first report.sequences ids (as strings, sorted) with full maps, cut to max-tokens. */
  private static List<ReportPage.Sequence> sequences(SparkSession spark, String folder,
      JobSettings settings) {
    Dataset<Row> attention = firstWindows(spark.read().parquet(folder + "/attention"));
    if (!Arrays.asList(attention.columns()).contains("weights")) {
      return List.of();   // top-k format: nothing to draw as a full heatmap
    }
    String id = settings.input().idColumn();
    int limit = settings.output().report().maxTokens();
    List<String> ids = attention.select(idText(attention, id).as("id")).distinct()
        .orderBy("id").limit(settings.output().report().sequences()).collectAsList().stream()
        .map(r -> r.getString(0)).toList();
    if (ids.isEmpty()) {
      return List.of();
    }
    Map<String, List<String>> tokens = tokens(spark, folder, settings, ids);
    Map<String, List<ReportPage.Map>> maps = new HashMap<>();
    Map<String, Integer> lengths = new HashMap<>();
    for (Row r : attention.withColumn(ID_TEXT, idText(attention, id))
        .where(col(ID_TEXT).isin(ids.toArray()))
        .orderBy(col("layer"), col("head")).collectAsList()) {
      String key = r.getAs(ID_TEXT);
      List<?> rows = r.getList(r.fieldIndex("weights"));
      int shown = Math.min(limit, rows.size());
      float[][] weights = new float[shown][shown];
      for (int i = 0; i < shown; i++) {
        List<?> row = toList(rows.get(i));
        for (int j = 0; j < shown; j++) {
          weights[i][j] = ((Number) row.get(j)).floatValue();
        }
      }
      lengths.put(key, rows.size());
      maps.computeIfAbsent(key, k -> new ArrayList<>())
          .add(new ReportPage.Map(r.getAs("layer"), r.getAs("head"), weights));
    }
    List<ReportPage.Sequence> out = new ArrayList<>();
    for (String key : ids) {
      out.add(new ReportPage.Sequence(key, tokens.get(key), lengths.getOrDefault(key, 0),
          maps.getOrDefault(key, List.of())));
    }
    return out;
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
    for (Row r : embeddings.withColumn(ID_TEXT, idText(embeddings, id))
        .where(col(ID_TEXT).isin(ids.toArray()))
        .select(col(ID_TEXT), col(column)).collectAsList()) {
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

  private static boolean exists(String path, Configuration hadoop) {
    Path p = new Path(path);
    try {
      return p.getFileSystem(hadoop).exists(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
