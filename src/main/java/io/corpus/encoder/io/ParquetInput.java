package io.corpus.encoder.io;

import io.corpus.encoder.io.SplitPlan.FileRange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.Partition;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructType;

/**
 * Opens the input table. For a flat folder of Parquet files (or one file) the schema is read from
 * one footer on the driver, which is what Spark does too without {@code mergeSchema}, but
 * without the Spark job it launches for it (about a second of scheduling before any work).
 * Partitioned folders and anything unusual go through Spark's own discovery.
 */
public final class ParquetInput {
  private ParquetInput() {}

  public static Dataset<Row> read(SparkSession spark, String path) {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    StructType schema = flatFolderSchema(new Path(path), conf, spark.sessionState().conf());
    return schema == null ? spark.read().parquet(path) : spark.read().schema(schema).parquet(path);
  }

  /**
   * How the reader's splits of {@code input} (a plain Parquet scan) spread over {@code slots}
   * task slots, from the footers of the files they name; see {@link SplitPlan}. Driver only.
   */
  public static SplitPlan splitPlan(Dataset<Row> input, int slots, Configuration conf) {
    Partition[] partitions = input.queryExecution().toRdd().partitions();
    List<List<FileRange>> splits = new ArrayList<>();
    Set<String> files = new LinkedHashSet<>();
    for (Partition partition : partitions) {
      if (!(partition instanceof FilePartition filePartition)) {
        // Not a plain file scan: count the rows, and let the number of splits decide.
        long rows = ParquetFooters.rowCount(ParquetFooters.rowGroups(
            Arrays.asList(input.inputFiles()), conf).values());
        boolean few = partitions.length < slots;
        return new SplitPlan(partitions.length, partitions.length, -1, rows, 1.0,
            few ? SplitPlan.Spread.SHUFFLE : SplitPlan.Spread.AS_IT_LIES,
            partitions.length + " splits that are not plain file ranges, on " + slots
                + " task slots" + (few ? ": shuffled" : ": read as they lie"));
      }
      List<FileRange> ranges = new ArrayList<>();
      for (PartitionedFile file : filePartition.files()) {
        String path = file.toPath().toString();
        ranges.add(new FileRange(path, file.start(), file.length()));
        files.add(path);
      }
      splits.add(ranges);
    }
    return SplitPlan.of(splits, ParquetFooters.rowGroups(files, conf), slots);
  }

  /**
   * The input as the encoder gets it, for {@code slots} task slots: as it lies; or, when the plan
   * says so, read by one task per slot, each keeping the rows whose index in their file is its
   * number modulo {@code slots} (every row once, no shuffle); or shuffled round-robin into two
   * partitions per slot.
   */
  public static Dataset<Row> spread(Dataset<Row> input, SplitPlan plan, int slots) {
    return switch (plan.spread()) {
      case AS_IT_LIES -> input;
      case SHUFFLE -> input.repartition(2 * slots);
      case STRIDED_READS -> {
        Column rowIndex = functions.col("_metadata.row_index");
        Dataset<Row> all = null;
        for (int reader = 0; reader < slots; reader++) {
          Dataset<Row> share = input.where(
              functions.pmod(rowIndex, functions.lit(slots)).equalTo(reader));
          all = all == null ? share : all.union(share);
        }
        yield all;
      }
    };
  }

  /**
   * A local input as Spark will read it: the schema of its first data file, and every data file.
   *
   * @param files the data files' paths, in order
   */
  public record LocalTable(StructType schema, List<String> files) {}

  /**
   * The input's schema from one footer, read before Spark starts where that is how Spark will
   * read it: a local file, a flat local folder of files, or a local glob's matches. Empty for
   * other file systems and partitioned folders, which Spark's reader checks. Refuses a local path
   * that does not exist, a glob that matches nothing, a folder without data files and a first
   * data file that is not Parquet, naming them.
   */
  public static Optional<LocalTable> schemaBeforeSpark(String input) {
    return schemaBeforeSpark(input, LocalPaths.beforeSpark());
  }

  /** As {@link #schemaBeforeSpark(String)}, with Hadoop's settings given. */
  static Optional<LocalTable> schemaBeforeSpark(String input, Configuration conf) {
    Path path = new Path(input);
    if (LocalPaths.isRemote(path, conf)) {
      return Optional.empty();
    }
    try {
      FileSystem fs = FileSystem.getLocal(conf);
      List<FileStatus> matches = new ArrayList<>();
      if (OutputPaths.isGlob(input)) {
        FileStatus[] found = fs.globStatus(path);
        matches.addAll(Arrays.asList(found == null ? new FileStatus[0] : found));
        matches.removeIf(m -> isHidden(m.getPath()));
        if (matches.isEmpty()) {
          throw new IllegalArgumentException("input.path " + input + " matches no file");
        }
        matches.sort(Comparator.comparing(FileStatus::getPath));
      } else if (!fs.exists(path)) {
        throw new IllegalArgumentException("input.path " + input + " does not exist");
      } else {
        matches.add(fs.getFileStatus(path));
      }
      List<Path> files = new ArrayList<>();
      for (FileStatus match : matches) {
        if (!match.isDirectory()) {
          files.add(match.getPath());
          continue;
        }
        List<Path> inside = flatDataFiles(fs, match.getPath());
        if (inside == null) {
          return Optional.empty();   // partitioned (key=value) or nested: Spark discovers it
        }
        files.addAll(inside);
      }
      if (files.isEmpty()) {
        throw new IllegalArgumentException("input.path " + input + " holds no Parquet file");
      }
      return Optional.of(new LocalTable(schemaOf(files.get(0), fs.getConf(), new SQLConf()),
          files.stream().map(Path::toString).toList()));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot look at input.path " + input, e);
    }
  }

  /** The schema of the first data file, or null if the path is not a flat set of files. */
  private static StructType flatFolderSchema(Path path, Configuration conf, SQLConf sqlConf) {
    try {
      FileSystem fs = path.getFileSystem(conf);
      if (!fs.exists(path)) {
        return null;   // Spark's reader says it clearly: [PATH_NOT_FOUND]
      }
      if (fs.isFile(path)) {
        return schemaOf(path, conf, sqlConf);
      }
      List<Path> files = flatDataFiles(fs, path);
      return files == null || files.isEmpty() ? null : schemaOf(files.get(0), conf, sqlConf);
    } catch (IOException | RuntimeException e) {
      return null;       // not readable as Parquet here: Spark's reader will say why
    }
  }

  /**
   * The data files of a flat folder, in order, from one listing; null when it holds a folder
   * (partitioned or nested: Spark discovers those).
   */
  private static List<Path> flatDataFiles(FileSystem fs, Path folder) throws IOException {
    List<Path> files = new ArrayList<>();
    for (FileStatus status : fs.listStatus(folder)) {
      if (isHidden(status.getPath())) {
        continue;
      }
      if (status.isDirectory()) {
        return null;
      }
      files.add(status.getPath());
    }
    files.sort(null);
    return files;
  }

  /** Spark's markers and checksums (_SUCCESS, .crc): not data. */
  private static boolean isHidden(Path path) {
    return path.getName().startsWith("_") || path.getName().startsWith(".");
  }

  /** A data file's schema as Spark reads it; refuses, naming it, a file that is not Parquet. */
  private static StructType schemaOf(Path file, Configuration conf, SQLConf sqlConf) {
    try (ParquetFileReader reader = ParquetFileReader.open(
        HadoopInputFile.fromPath(file, conf))) {
      // The session's SQL settings (binary as string, INT96 as timestamp, ...), as Spark's own
      // inference uses: a Hadoop Configuration does not hold them, and that constructor throws.
      return new ParquetToSparkSchemaConverter(sqlConf)
          .convert(reader.getFileMetaData().getSchema());
    } catch (IOException | RuntimeException e) {
      throw ParquetFooters.unreadable(file.toString(), e);
    }
  }
}
