package io.corpus.encoder.io;

import io.corpus.encoder.common.InternalRows;
import io.corpus.encoder.io.ParquetFooters.RowGroup;
import io.corpus.encoder.io.SplitPlan.FileRange;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetInputFormat;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.Partition;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.PartitionPruningRDD;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.runtime.AbstractFunction1;

/**
 * Opens the input table. For a flat folder of Parquet files (or one file) the schema is read from
 * one footer on the driver, which is what Spark does too without {@code mergeSchema}, but
 * without the Spark job it launches for it (about a second of scheduling before any work).
 * Partitioned folders and anything unusual go through Spark's own discovery.
 */
public final class ParquetInput {
  /** The most tasks that read one split, each keeping a share of its rows: each decodes it all. */
  static final int MAX_READERS = 256;

  private ParquetInput() {}

  public static Dataset<Row> read(SparkSession spark, String path) {
    return read(spark, path, false);
  }

  /**
   * {@link #read(SparkSession, String)}, for a table whose rows are {@code wide} (token vectors:
   * a column chunk of a row group holds hundreds of megabytes) read without Parquet's vectored
   * reads where it lies on this machine's file system ({@link #readOptions}).
   */
  public static Dataset<Row> read(SparkSession spark, String path, boolean wide) {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    StructType schema = flatFolderSchema(new Path(path), conf, spark.sessionState().conf());
    DataFrameReader reader = spark.read().options(readOptions(new Path(path), conf, wide));
    return schema == null ? reader.parquet(path) : reader.schema(schema).parquet(path);
  }

  /**
   * The reader's options for a table at {@code path}: none, except for wide rows on the local
   * file system, which are read without Parquet's vectored reads. Hadoop's local file system
   * reads each vectored range (a whole column chunk) through an asynchronous channel into a heap
   * buffer, which Java fills through a native buffer of the range's size, zeroed first and then
   * kept in the channel thread's cache for the JVM's life: 100 MB a task for 256 rows of 128
   * BERT-base token vectors (both tasks of a one-row-group file read all of it). Read without,
   * that job peaked about 0.15 GB lower with 40 % fewer page faults, in the same time
   * (src/site/markdown/speed.md). Remote stores keep them.
   */
  static Map<String, String> readOptions(Path path, Configuration conf, boolean wide) {
    return wide && !LocalPaths.isRemote(path, conf)
        ? Map.of(ParquetInputFormat.HADOOP_VECTORED_IO_ENABLED, "false") : Map.of();
  }

  /**
   * How the reader's splits of {@code input} (a plain Parquet scan) spread over {@code slots}
   * task slots, from the footers of the files they name; see {@link SplitPlan}. Driver only.
   */
  public static SplitPlan splitPlan(Dataset<Row> input, int slots, Configuration conf) {
    return splitPlan(input, slots, conf, Map.of());
  }

  /**
   * As {@link #splitPlan(Dataset, int, Configuration)}, with the row groups of {@code input}'s
   * files already read ({@code footers}, keyed as {@link Dataset#inputFiles} names them): their
   * footers are not read again.
   */
  public static SplitPlan splitPlan(Dataset<Row> input, int slots, Configuration conf,
      Map<String, List<RowGroup>> footers) {
    Partition[] partitions = input.queryExecution().toRdd().partitions();
    List<List<FileRange>> splits = new ArrayList<>();
    Map<String, String> files = new LinkedHashMap<>();   // path -> its key in footers
    for (Partition partition : partitions) {
      if (!(partition instanceof FilePartition filePartition)) {
        // Not a plain file scan: count the rows, and let the number of splits decide.
        Map<String, List<RowGroup>> groups = footers.isEmpty()
            ? ParquetFooters.rowGroups(Arrays.asList(input.inputFiles()), conf) : footers;
        long bytes = groups.values().stream().flatMap(List::stream)
            .mapToLong(RowGroup::bytes).sum();
        boolean few = partitions.length < slots;
        return new SplitPlan(partitions.length, partitions.length, -1,
            ParquetFooters.rowCount(groups.values()), bytes, 1.0,
            few ? SplitPlan.Spread.SHUFFLE : SplitPlan.Spread.AS_IT_LIES,
            partitions.length + " splits that are not plain file ranges, on " + slots
                + " task slots" + (few ? ": shuffled" : ": read as they lie"),
            IntStream.range(0, partitions.length).boxed().toList());
      }
      List<FileRange> ranges = new ArrayList<>();
      for (PartitionedFile file : filePartition.files()) {
        String path = file.toPath().toString();
        ranges.add(new FileRange(path, file.start(), file.length()));
        files.put(path, file.urlEncodedPath());
      }
      splits.add(ranges);
    }
    return SplitPlan.of(splits, rowGroups(files, footers, conf), slots);
  }

  /**
   * The row groups of {@code files} (each path as the splits name it, to its URL-encoded form,
   * the one {@link Dataset#inputFiles} names), from {@code footers} when it holds every one of
   * them, else read from the files.
   */
  private static Map<String, List<RowGroup>> rowGroups(Map<String, String> files,
      Map<String, List<RowGroup>> footers, Configuration conf) {
    Map<String, List<RowGroup>> found = new LinkedHashMap<>();
    for (Map.Entry<String, String> file : files.entrySet()) {
      List<RowGroup> groups = footers.get(file.getValue());
      if (groups == null) {
        return ParquetFooters.rowGroups(files.keySet(), conf);
      }
      found.put(file.getKey(), groups);
    }
    return found;
  }

  /**
   * Every file the input's splits read, once, in split order, as {@code path}, {@code size},
   * {@code modified} (milliseconds) and {@code footer} (the SHA-256 of its footer, which a
   * rewrite that keeps the size and time changes): what a piece of the output computed from them
   * depends on. Paths, sizes and times come from the splits Spark planned.
   */
  public static List<Map<String, Object>> files(Dataset<Row> input, Configuration conf) {
    Map<String, Map<String, Object>> byPath = new LinkedHashMap<>();
    for (Partition partition : input.queryExecution().toRdd().partitions()) {
      if (!(partition instanceof FilePartition filePartition)) {
        byPath.clear();
        for (Map<String, Object> file : statuses(input.inputFiles(), conf)) {
          byPath.put((String) file.get("path"), file);
        }
        break;
      }
      for (PartitionedFile file : filePartition.files()) {
        String path = file.toPath().toString();
        byPath.computeIfAbsent(path, p -> file(p, file.fileSize(), file.modificationTime()));
      }
    }
    ParquetFooters.footerDigests(byPath.keySet(), conf)
        .forEach((path, digest) -> byPath.get(path).put("footer", digest));
    return List.copyOf(byPath.values());
  }

  private static List<Map<String, Object>> statuses(String[] paths, Configuration conf) {
    List<Map<String, Object>> files = new ArrayList<>();
    for (String path : paths) {
      try {
        Path p = new Path(path);
        FileStatus status = p.getFileSystem(conf).getFileStatus(p);
        files.add(file(path, status.getLen(), status.getModificationTime()));
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot look at input file " + path, e);
      }
    }
    return files;
  }

  private static Map<String, Object> file(String path, long size, long modified) {
    Map<String, Object> file = new LinkedHashMap<>();
    file.put("path", path);
    file.put("size", size);
    file.put("modified", modified);
    return file;
  }

  /**
   * The input as the encoder gets it, for {@code slots} task slots: as it lies; or, when the plan
   * says so, each split that holds rows read by one task per slot, each keeping its share of
   * the rows by {@code weight} (every row once, no shuffle; {@link #strided}); or shuffled
   * round-robin into two partitions per slot.
   */
  public static Dataset<Row> spread(Dataset<Row> input, SplitPlan plan, int slots,
      RowWeight weight) {
    return switch (plan.spread()) {
      case AS_IT_LIES -> input;
      case SHUFFLE -> input.repartition(2 * slots);
      case STRIDED_READS -> strided(input, plan.busy(), slots, Set.of(), weight);
    };
  }

  /**
   * How many pieces {@link #inPieces} cuts the input into for at least {@code wanted}: each
   * split that holds rows read by as many tasks as it takes (by at least one per slot where the
   * plan reads strided), or as many shuffled partitions as wanted (at least two per slot) where
   * the splits are not plain file ranges and too few.
   */
  public static int pieceCount(SplitPlan plan, int slots, int wanted) {
    int splits = Math.max(1, plan.busy().size());
    // A count of pieces that is not a multiple of the slots leaves slots idle at the end: 7
    // equal pieces on 2 slots take as long as 8.
    int multiple = slots / gcd(splits, slots);
    return switch (plan.spread()) {
      case STRIDED_READS -> splits * roundUp(Math.max(slots, Math.min(MAX_READERS,
          ceilDiv(wanted, splits))), multiple);
      case SHUFFLE -> roundUp(Math.max(2 * slots, wanted), slots);
      case AS_IT_LIES -> plan.rowGroups() < 0 ? Math.max(plan.splits(), wanted)
          : ceilDiv(wanted, splits) <= 1 ? splits
          : splits * roundUp(Math.min(MAX_READERS, ceilDiv(wanted, splits)), multiple);
    };
  }

  /**
   * The input cut into {@code pieces} partitions (a count {@link #pieceCount} gave), of which
   * those numbered in {@code skipped} are left empty without reading a row: partition {@code i}
   * holds the same rows in every run on the same files, splits and plan, so a piece of the
   * output a killed run kept stands for it. Each split that holds rows is read by
   * {@code pieces / splits} tasks, each keeping its share of the rows by {@code weight} (reading
   * is cheap next to encoding; {@link #strided}).
   */
  public static Dataset<Row> inPieces(Dataset<Row> input, SplitPlan plan, int pieces,
      Set<Integer> skipped, RowWeight weight) {
    if (plan.rowGroups() < 0) {   // not plain file ranges: no row index to cut by
      return skipping(pieces > plan.splits() ? input.repartition(pieces) : input, skipped);
    }
    if (plan.spread() == SplitPlan.Spread.SHUFFLE) {
      return skipping(input.repartition(pieces), skipped);
    }
    return strided(input, plan.busy(), pieces / Math.max(1, plan.busy().size()), skipped,
        weight);
  }

  /**
   * The splits numbered in {@code busy}, each read by {@code readers} tasks: every reader goes
   * through the split's rows in the same order, giving each to the reader with the least weight
   * so far (the lowest number on a tie), and keeps its own: every row once, no shuffle, the
   * readers' weights within one row of each other (every other row alike when the weights are
   * equal). Partition {@code k * busy.size() + b} is reader k of the b-th busy split; those in
   * {@code skipped} are empty. Cut at the level of the scan's RDD, so that planning is one scan
   * however many readers.
   */
  private static Dataset<Row> strided(Dataset<Row> input, List<Integer> busy, int readers,
      Set<Integer> skipped, RowWeight weight) {
    StructType schema = input.schema();
    int field = Arrays.asList(schema.fieldNames()).indexOf(weight.column());
    DataType type = field < 0 ? null : schema.fields()[field].dataType();
    JavaRDD<InternalRow> scan = input.queryExecution().toRdd().toJavaRDD();
    int splits = busy.size();
    List<Integer> splitOf = List.copyOf(busy);
    List<JavaRDD<InternalRow>> shares = new ArrayList<>();
    for (int reader = 0; reader < readers; reader++) {
      int share = reader;
      Set<Integer> reading = new TreeSet<>();
      for (int b = 0; b < splits; b++) {
        if (!skipped.contains(reader * splits + b)) {
          reading.add(splitOf.get(b));
        }
      }
      JavaRDD<InternalRow> read = scan.mapPartitionsWithIndex((split, rows) ->
          reading.contains(split) ? share(rows, weight, field, type, readers, share)
              : Collections.emptyIterator(), true);
      shares.add(JavaRDD.fromRDD(PartitionPruningRDD.create(read.rdd(), new Among(splitOf)),
          read.classTag()));
    }
    JavaRDD<InternalRow> all = JavaSparkContext.fromSparkContext(scan.context())
        .union(shares.toArray(new JavaRDD[0]));
    return InternalRows.toDataFrame(input.sparkSession(), all, schema);
  }

  /** Whether a partition's number is among those given: which splits a pruned scan keeps. */
  private static final class Among extends AbstractFunction1<Object, Object>
      implements Serializable {
    private final Set<Integer> kept;

    Among(List<Integer> kept) {
      this.kept = new TreeSet<>(kept);
    }

    @Override
    public Object apply(Object partition) {
      return kept.contains((Integer) partition);
    }
  }

  /**
   * Reader {@code share}'s rows of a split that {@code readers} tasks read: each row goes to
   * the reader with the least weight so far, the lowest number on a tie ({@link #strided}).
   */
  private static Iterator<InternalRow> share(Iterator<InternalRow> rows, RowWeight weight,
      int field, DataType type, int readers, int share) {
    Readers taking = new Readers(weight, field, type, readers);
    return new Taken(rows, row -> taking.of(row) == share ? row : null);
  }

  /**
   * Which of a split's readers takes each row, in the split's order: the one with the least
   * weight so far, the lowest number on a tie. Every reader of the split, and {@link #labelled},
   * run it over the same rows and so agree.
   */
  private static final class Readers {
    private final RowWeight weight;
    private final int field;
    private final DataType type;
    private final double[] loads;   // every reader's weight so far

    Readers(RowWeight weight, int field, DataType type, int readers) {
      this.weight = weight;
      this.field = field;
      this.type = type;
      this.loads = new double[readers];
    }

    int of(InternalRow row) {
      int lightest = 0;
      for (int r = 1; r < loads.length; r++) {
        if (loads[r] < loads[lightest]) {
          lightest = r;
        }
      }
      loads[lightest] += weight.of(row, field, type);
      return lightest;
    }
  }

  /**
   * The rows of the pieces numbered in {@code wanted} of the input cut into {@code pieces} as
   * {@link #inPieces} cuts it, each with its piece's number in an int column {@code pieceColumn}
   * after the input's: where splits are read by several readers, each split read once (not
   * once per reader), its rows labelled as the readers would share them.
   */
  public static Dataset<Row> labelled(Dataset<Row> input, SplitPlan plan, int pieces,
      Set<Integer> wanted, RowWeight weight, String pieceColumn) {
    StructType schema = input.schema().add(pieceColumn, DataTypes.IntegerType, false);
    Set<Integer> want = new TreeSet<>(wanted);
    JavaRDD<InternalRow> rows;
    if (plan.rowGroups() < 0 || plan.spread() == SplitPlan.Spread.SHUFFLE) {
      Set<Integer> others = new TreeSet<>();
      IntStream.range(0, pieces).filter(i -> !want.contains(i)).forEach(others::add);
      rows = inPieces(input, plan, pieces, others, weight).queryExecution().toRdd().toJavaRDD()
          .mapPartitionsWithIndex((piece, it) -> labelled(it, row -> piece, want), true);
    } else {
      List<Integer> busy = List.copyOf(plan.busy());
      int readers = pieces / Math.max(1, busy.size());
      int field = Arrays.asList(input.schema().fieldNames()).indexOf(weight.column());
      DataType type = field < 0 ? null : input.schema().fields()[field].dataType();
      JavaRDD<InternalRow> scan = input.queryExecution().toRdd().toJavaRDD();
      rows = JavaRDD.fromRDD(PartitionPruningRDD.create(scan.mapPartitionsWithIndex(
          (split, it) -> {
            int b = busy.indexOf(split);
            if (b < 0) {
              return Collections.emptyIterator();
            }
            Readers share = new Readers(weight, field, type, readers);
            return labelled(it, row -> share.of(row) * busy.size() + b, want);
          }, true).rdd(), new Among(busy)), scan.classTag());
    }
    return InternalRows.toDataFrame(input.sparkSession(), rows, schema);
  }

  /** The rows whose piece is wanted, each with its piece's number after its columns. */
  private static Iterator<InternalRow> labelled(Iterator<InternalRow> rows,
      java.util.function.ToIntFunction<InternalRow> pieceOf, Set<Integer> wanted) {
    return new Taken(rows, row -> {
      int piece = pieceOf.applyAsInt(row);
      return wanted.contains(piece)
          ? new JoinedRow(row, new GenericInternalRow(new Object[] {piece})) : null;
    });
  }

  /** The rows {@code take} makes something of (null: the row is passed over), lazily. */
  private static final class Taken implements Iterator<InternalRow> {
    private final Iterator<InternalRow> rows;
    private final java.util.function.UnaryOperator<InternalRow> take;
    private InternalRow next;

    Taken(Iterator<InternalRow> rows, java.util.function.UnaryOperator<InternalRow> take) {
      this.rows = rows;
      this.take = take;
    }

    @Override
    public boolean hasNext() {
      while (next == null && rows.hasNext()) {
        next = take.apply(rows.next());
      }
      return next != null;
    }

    @Override
    public InternalRow next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      InternalRow row = next;
      next = null;
      return row;
    }
  }

  /** The same partitions, those numbered in {@code skipped} empty without reading a row. */
  private static Dataset<Row> skipping(Dataset<Row> input, Set<Integer> skipped) {
    if (skipped.isEmpty()) {
      return input;
    }
    Set<Integer> skip = new TreeSet<>(skipped);
    JavaRDD<InternalRow> rows = input.queryExecution().toRdd().toJavaRDD()
        .mapPartitionsWithIndex((i, it) -> skip.contains(i) ? Collections.emptyIterator() : it,
            true);
    return InternalRows.toDataFrame(input.sparkSession(), rows, input.schema());
  }

  private static int roundUp(int n, int multiple) {
    return ceilDiv(n, multiple) * multiple;
  }

  private static int gcd(int a, int b) {
    return b == 0 ? a : gcd(b, a % b);
  }

  private static int ceilDiv(int a, int b) {
    return b <= 0 ? a : (a + b - 1) / b;
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
