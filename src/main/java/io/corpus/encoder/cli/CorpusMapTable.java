package io.corpus.encoder.cli;

import static org.apache.spark.ml.functions.array_to_vector;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.udf;

import io.corpus.encoder.common.OwnThread;
import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.config.InputKind;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.io.ParquetFooters;
import io.corpus.encoder.report.CorpusMap;
import io.corpus.encoder.report.NearestNeighbours;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.spark.ml.feature.PCA;
import org.apache.spark.ml.linalg.Matrix;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The corpus map's rows, read from embeddings/: at most report.map-points of them, the ones
 * whose id hashes lowest (the hash attention.sample keeps maps by, so a uniform sample that
 * reruns repeat) are collected in one query that reads only the columns shown (not the token
 * vectors); Spark ML's PCA is fitted on them and {@link NearestNeighbours} runs on the driver.
 */
final class CorpusMapTable {
  /** Characters of a row's text that the page shows and searches. */
  static final int TEXT_CHARS = 160;
  /**
   * Most rows the PCA is fitted on. The components of a uniform sample of 2,000 are those of
   * the whole to the eye, and Spark's fit costs about 0.13 s per 1,000 rows of E = 384 here.
   */
  static final int PCA_ROWS = 2_000;
  /** Most near-duplicate pairs listed. */
  static final int MOST_PAIRS = 1000;

  private static final String POOLED = "pooled";
  private static final UserDefinedFunction UNIT_HASH = udf(
      (UDF1<String, Double>) AttentionOutputs::unitHash, DataTypes.DoubleType);

  private static final Logger LOG = LoggerFactory.getLogger(CorpusMapTable.class);

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
    long start = System.nanoTime();
    // One job: each partition's lowest hashes, merged on the driver. Only these columns are read.
    List<Row> points = table
        .select(label.as("label"), text(settings).as("text"), color.as("color"),
            array_to_vector(col(POOLED)).as("vector"), UNIT_HASH.apply(id).as("hash"))
        .orderBy(col("hash"), col("label")).limit(report.mapPoints())
        .select("label", "text", "color", "vector").collectAsList();
    long rows = ParquetFooters.rowCountOfFolder(folder + "/embeddings",
        spark.sparkContext().hadoopConfiguration());
    long read = System.nanoTime();
    // Spark ML's PCA on a local table of at most PCA_ROWS vectors (the first by hash, a uniform
    // sample of those drawn), fitted while the driver computes the neighbours: the fit is mostly
    // waiting on Spark's scheduling.
    List<Row> sample = new ArrayList<>();
    for (Row r : points.subList(0, Math.min(PCA_ROWS, points.size()))) {
      sample.add(RowFactory.create(r.<Vector>getAs("vector")));
    }
    StructType vectors = new StructType().add("vector", SQLDataTypes.VectorType());
    CompletableFuture<Matrix> components = CompletableFuture.supplyAsync(() -> sample.size() < 2
        ? null : new PCA().setK(2).setInputCol("vector")
            .fit(spark.createDataFrame(sample, vectors)).pc(), OwnThread.named("corpus-map-pca"));
    NearestNeighbours neighbours = neighbours(points, report);
    long near = System.nanoTime();
    CorpusMap map = build(points, joined(components), neighbours, rows, report);
    LOG.info(String.format(Locale.ROOT, "report: corpus map of %,d rows: read %.2f s, "
        + "neighbours %.2f s, then waited %.2f s for the PCA fitted on %,d", points.size(),
        (read - start) / 1e9, (near - read) / 1e9, (System.nanoTime() - near) / 1e9,
        sample.size()));
    return map;
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

  private static Matrix joined(CompletableFuture<Matrix> components) {
    try {
      return components.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException cause ? cause : e;
    }
  }

  private static NearestNeighbours neighbours(List<Row> points, JobSettings.Report report) {
    int n = points.size();
    int e = n == 0 ? 0 : points.get(0).<Vector>getAs("vector").size();
    float[] vectors = new float[n * e];   // (N, E)
    for (int i = 0; i < n; i++) {
      Vector v = points.get(i).getAs("vector");
      for (int c = 0; c < e; c++) {
        vectors[i * e + c] = (float) v.apply(c);
      }
    }
    return NearestNeighbours.of(vectors, n, e, report.neighbours(), report.duplicatesAbove(),
        MOST_PAIRS);
  }

  /**
   * @param components (E, 2) the principal components, which PCAModel.transform applies to a
   *     vector (uncentred: the map is the same picture shifted); null for fewer than two rows,
   *     drawn at the origin
   */
  private static CorpusMap build(List<Row> points, Matrix components,
      NearestNeighbours neighbours, long rows, JobSettings.Report report) {
    int n = points.size();
    List<String> ids = new ArrayList<>(n);
    List<String> texts = new ArrayList<>(n);
    List<String> colors = new ArrayList<>(n);
    float[] x = new float[n];
    float[] y = new float[n];
    Matrix projection = components == null ? null : components.transpose();
    for (int i = 0; i < n; i++) {
      Row r = points.get(i);
      ids.add(r.getAs("label"));
      texts.add(CorpusMap.firstWords(r.getAs("text"), TEXT_CHARS));
      colors.add(r.getAs("color"));
      if (projection != null) {
        Vector xy = projection.multiply(r.<Vector>getAs("vector"));
        x[i] = (float) xy.apply(0);
        y[i] = (float) xy.apply(1);
      }
    }
    return new CorpusMap(rows, report.colorColumn(), ids, texts, colors, x, y, neighbours,
        report.duplicatesAbove());
  }

}
