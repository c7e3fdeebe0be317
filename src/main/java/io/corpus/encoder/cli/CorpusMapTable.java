package io.corpus.encoder.cli;

import static org.apache.spark.ml.functions.array_to_vector;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.udf;

import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.config.InputKind;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.io.ParquetFooters;
import io.corpus.encoder.report.CorpusMap;
import io.corpus.encoder.report.NearestNeighbours;
import io.corpus.encoder.report.PrincipalComponents;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.DataTypes;

/**
 * The corpus map's rows, read from embeddings/: at most report.map-points of them, the ones
 * whose id hashes lowest (the hash attention.sample keeps maps by, so a uniform sample that
 * reruns repeat) are collected in one query that reads only the columns shown (not the token
 * vectors); {@link PrincipalComponents} and {@link NearestNeighbours} run on the driver.
 */
final class CorpusMapTable {
  /** Characters of a row's text that the page shows and searches. */
  static final int TEXT_CHARS = 160;
  /** Most near-duplicate pairs listed. */
  static final int MOST_PAIRS = 1000;

  private static final String POOLED = "pooled";
  private static final UserDefinedFunction UNIT_HASH = udf(
      (UDF1<String, Double>) AttentionOutputs::unitHash, DataTypes.DoubleType);

  private CorpusMapTable() {}

  /** The map, or null when there is nothing to draw (no pooled column, map-points 0). */
  static CorpusMap collect(SparkSession spark, String folder, JobSettings settings) {
    JobSettings.Report report = settings.output().report();
    Dataset<Row> table = spark.read().parquet(folder + "/embeddings");
    List<String> columns = Arrays.asList(table.columns());
    if (report.mapPoints() == 0 || !columns.contains(POOLED)) {
      return null;
    }
    Column id = AttentionReport.idText(table, settings.input().idColumn());
    Column label = columns.contains(InputKind.CHUNK_COLUMN)
        ? concat(id, lit("#"), col(InputKind.CHUNK_COLUMN).cast("string")) : id;
    Column color = report.colorColumn().isEmpty() ? lit(null).cast("string")
        : col(report.colorColumn()).cast("string");
    // One job: each partition's lowest hashes, merged on the driver. Only these columns are read.
    List<Row> points = table
        .select(label.as("label"), text(settings).as("text"), color.as("color"),
            array_to_vector(col(POOLED)).as("vector"), UNIT_HASH.apply(id).as("hash"))
        .orderBy(col("hash"), col("label")).limit(report.mapPoints())
        .select("label", "text", "color", "vector").collectAsList();
    long rows = ParquetFooters.rowCountOfFolder(folder + "/embeddings",
        spark.sparkContext().hadoopConfiguration());
    return build(points, rows, report);
  }

  /** A row's text: the text column, a pair's two texts, or none for ids and token vectors. */
  private static Column text(JobSettings settings) {
    JobSettings.Input input = settings.input();
    if (input.textColumn().isEmpty()) {
      return lit(null).cast("string");
    }
    return input.pairColumn().isEmpty() ? col(input.textColumn())
        : concat_ws(" | ", col(input.textColumn()), col(input.pairColumn()));
  }

  private static CorpusMap build(List<Row> points, long rows, JobSettings.Report report) {
    int n = points.size();
    int e = n == 0 ? 0 : points.get(0).<Vector>getAs("vector").size();
    List<String> ids = new ArrayList<>(n);
    List<String> texts = new ArrayList<>(n);
    List<String> colors = new ArrayList<>(n);
    float[] x = new float[n];
    float[] y = new float[n];
    float[] vectors = new float[n * e];
    for (int i = 0; i < n; i++) {
      Row r = points.get(i);
      ids.add(r.getAs("label"));
      texts.add(CorpusMap.firstWords(r.getAs("text"), TEXT_CHARS));
      colors.add(r.getAs("color"));
      Vector v = r.getAs("vector");
      for (int c = 0; c < e; c++) {
        vectors[i * e + c] = (float) v.apply(c);
      }
    }
    float[] xy = PrincipalComponents.project(vectors, n, e);
    for (int i = 0; i < n; i++) {
      x[i] = xy[2 * i];
      y[i] = xy[2 * i + 1];
    }
    NearestNeighbours neighbours = NearestNeighbours.of(vectors, n, e, report.neighbours(),
        report.duplicatesAbove(), MOST_PAIRS);
    return new CorpusMap(rows, report.colorColumn(), ids, texts, colors, x, y, neighbours,
        report.duplicatesAbove());
  }
}
