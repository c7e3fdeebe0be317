package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.explode;

import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.config.InputKind;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.io.OutputFolder;
import io.corpus.encoder.pipeline.EncoderTransformer;
import io.corpus.encoder.pipeline.HeadImportanceTable;
import io.corpus.encoder.pipeline.HeadStatsTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.DataFrameWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * The tables one forward pass feeds: embeddings/ always; attention/ (or attention-norms/),
 * rollout/, head-stats/ and head-importance/ as the settings ask. Maps and rollout are separate
 * columns of the encoded rows, so with them the rows are kept (memory, then disk) while each
 * table is written; statistics and head importances stay in embeddings/ (a few numbers a row),
 * and head-stats/ and head-importance/ are summed from the committed table.
 */
final class EncodedTables {
  static final String ATTENTION_COLUMN = "attention";
  static final String STATS_COLUMN = "attention_stats";
  static final String ROLLOUT_COLUMN = "rollout";
  static final String IMPORTANCE_COLUMN = "attention_importance";

  private final SparkSession spark;
  private final JobSettings settings;
  private final AttentionOutputs attention;
  private final List<String> separateColumns = new ArrayList<>();
  private final boolean keepsPieces;
  private final String table;   // the staged table of rows: embeddings, or the float vectors
  private final int layers;

  /** Tables whose rows go to the staged {@code table}, from a model of {@code layers} layers. */
  EncodedTables(SparkSession spark, JobSettings settings, String table, int layers) {
    this.spark = spark;
    this.settings = settings;
    this.table = table;
    this.layers = layers;
    this.attention = settings.output().attention();
    this.keepsPieces = Checkpoints.whyNone(settings) == null;
    if (attention.enabled()) {
      separateColumns.add(ATTENTION_COLUMN);
    }
    if (attention.rollout()) {
      separateColumns.add(ROLLOUT_COLUMN);
    }
  }

  /** Asks the transformer for the attention columns these tables need. */
  static EncoderTransformer withAttentionColumns(EncoderTransformer transformer,
      AttentionOutputs attention) {
    if (attention.enabled()) {
      transformer.setAttentionCol(ATTENTION_COLUMN);
    }
    if (attention.stats()) {
      transformer.setStatsCol(STATS_COLUMN);
    }
    if (attention.rollout()) {
      transformer.setRolloutCol(ROLLOUT_COLUMN);
    }
    if (attention.importance()) {
      transformer.setImportanceCol(IMPORTANCE_COLUMN);
    }
    return transformer;
  }

  /**
   * Writes every table into the staging folder; {@code phase} hears what it writes once the
   * rows are encoded (the maps, the statistics).
   */
  void write(Dataset<Row> encoded, OutputFolder out, Consumer<String> phase) {
    if (keepsPieces) {
      // Each task's file moves into the table when the task commits (algorithm 2), so a
      // killed run leaves every finished piece there; a resumed run adds the rest beside them.
      floatTable(encoded.write()).mode(SaveMode.Append)
          .option("mapreduce.fileoutputcommitter.algorithm.version", "2")
          .parquet(out.staged(table));
    } else if (separateColumns.isEmpty()) {
      floatTable(encoded.write()).parquet(out.staged(table));
    } else {
      encoded = encoded.persist(StorageLevel.MEMORY_AND_DISK());
      floatTable(encoded.drop(separateColumns.toArray(new String[0])).write())
          .parquet(out.staged(table));
      writeMapTables(encoded, out, phase);
      encoded.unpersist();
    }
    StructType written = encoded.schema();
    if (attention.stats()) {
      phase.accept("summing the head statistics");
      List<String> read = new ArrayList<>(attention.statsBy());
      read.add(STATS_COLUMN);
      HeadStatsTable.of(readBack(out, written, read), STATS_COLUMN, attention.statsBy())
          .write().parquet(out.staged("head-stats"));
    }
    if (attention.importance()) {
      phase.accept("averaging the head importances");
      HeadImportanceTable.of(readBack(out, written, List.of(IMPORTANCE_COLUMN)),
          IMPORTANCE_COLUMN, layers, settings.model().heads())
          .coalesce(1).write().parquet(out.staged("head-importance"));
    }
  }

  /**
   * The staged table's {@code columns}, read with the types they were written with: given the
   * schema, Spark runs no job of its own to read it from the files' footers.
   */
  private Dataset<Row> readBack(OutputFolder out, StructType written, List<String> columns) {
    StructType schema = new StructType(columns.stream().map(written::apply)
        .toArray(StructField[]::new));
    return spark.read().schema(schema).parquet(out.staged(table));
  }

  /** attention/ (by layer) and rollout/, as asked for. */
  private void writeMapTables(Dataset<Row> encoded, OutputFolder out, Consumer<String> phase) {
    // The row's key: its id, and with texts cut into windows, which window.
    List<Column> key = new ArrayList<>(List.of(col(settings.input().idColumn())));
    if (settings.input().chunkRows()
        && Arrays.asList(encoded.columns()).contains(InputKind.CHUNK_COLUMN)) {
      key.add(col(InputKind.CHUNK_COLUMN));
    }
    if (attention.enabled()) {
      phase.accept("writing the attention maps");
      List<Column> keyAndMap = new ArrayList<>(key);
      keyAndMap.add(explode(col(ATTENTION_COLUMN)).as("a"));
      List<Column> keyAndFields = new ArrayList<>(key);
      keyAndFields.add(col("a.*"));
      floatTable(encoded.select(keyAndMap.toArray(new Column[0]))
          .select(keyAndFields.toArray(new Column[0]))
          .write().partitionBy("layer"))
          // pages of at most 256 rows: a reader looking for a few ids (the report, a notebook)
          // skips the other pages through Parquet's column index
          .option("parquet.page.row.count.limit", 256)
          .parquet(out.staged(attention.measure().table()));
    }
    if (attention.rollout()) {
      phase.accept("writing the rollout");
      List<Column> keyAndRollout = new ArrayList<>(key);
      keyAndRollout.add(col(ROLLOUT_COLUMN).as("weights"));
      floatTable(encoded.where(col(ROLLOUT_COLUMN).isNotNull())
          .select(keyAndRollout.toArray(new Column[0])).write())
          .parquet(out.staged("rollout"));
    }
  }

  /**
   * Writer settings for tables of float vectors, whose rows are large (T x E floats). Parquet
   * checks its page size only every 100 rows at first, then at estimated intervals, so a page
   * (and the row group around it) could hold hundreds of megabytes before it is flushed, growing
   * with the rows of a task: checking every row keeps the writer's memory at about one 32 MB row
   * group per task. Dictionary encoding only costs time on floats that never repeat.
   */
  static DataFrameWriter<Row> floatTable(DataFrameWriter<Row> writer) {
    return writer.option("parquet.enable.dictionary", "false")
        .option("parquet.block.size", 32 << 20)
        .option("parquet.page.size.row.check.min", 1)
        .option("parquet.page.size.row.check.max", 4)
        .option("parquet.page.size.check.estimate", false);
  }
}
