package io.corpus.encoder.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.parquet.hadoop.ParquetInputFormat;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real Parquet layouts through Spark's reader: a file with one row group (as pandas, pyarrow or
 * DuckDB write a table) must still reach every task slot; many files are read as they lie.
 */
class ParquetInputSplitsTest {
  private static final int SLOTS = 2;
  /** A session of its own: the split settings below stay out of the shared one's. */
  private final SparkSession spark = SparkTestSession.get().newSession();

  @TempDir
  Path tmp;

  @BeforeEach
  void smallSplits() {
    // What EncodeJob sets, and splits small enough that the test file is cut into several ranges.
    spark.conf().set("spark.sql.files.minPartitionNum", 4 * SLOTS);
    spark.conf().set("spark.sql.files.maxPartitionBytes", 64 * 1024);
    spark.conf().set("spark.sql.files.openCostInBytes", 4 * 1024);
  }

  @AfterEach
  void restore() {
    spark.conf().unset("spark.sql.files.minPartitionNum");
    spark.conf().unset("spark.sql.files.maxPartitionBytes");
    spark.conf().unset("spark.sql.files.openCostInBytes");
  }

  private String table(int files) {
    String path = tmp.resolve("t" + files).toString();
    // Random doubles do not compress: about 400 KB of data.
    spark.range(0, 800).withColumn("v", functions.expr("transform(sequence(1, 64), i -> rand())"))
        .repartition(files).write().parquet(path);
    return path;
  }

  /**
   * Footers read once, as the job reads them to size the reader's batch, are the ones the plan
   * counts: each file's row groups, here given 1,000 rows more than the file holds, are taken
   * from the map (its keys the form {@code inputFiles} names them in), not read again.
   */
  @Test
  void footersAlreadyReadAreNotReadAgain() {
    String path = table(3);
    Dataset<Row> input = ParquetInput.read(spark, path);
    var conf = spark.sparkContext().hadoopConfiguration();
    Map<String, List<ParquetFooters.RowGroup>> footers = new java.util.LinkedHashMap<>();
    ParquetFooters.rowGroups(Arrays.asList(input.inputFiles()), conf).forEach((file, groups) ->
        footers.put(file, groups.stream().map(g -> new ParquetFooters.RowGroup(g.midpoint(),
            g.rows() + 1000, g.bytes())).toList()));
    SplitPlan read = ParquetInput.splitPlan(input, SLOTS, conf);
    SplitPlan given = ParquetInput.splitPlan(input, SLOTS, conf, footers);
    assertEquals(800, read.rows());
    assertEquals(800 + 1000 * read.rowGroups(), given.rows(), given.reason());
    assertEquals(read.rowGroups(), given.rowGroups());
    assertEquals(read.busy(), given.busy());
  }

  /**
   * Wide rows on this machine's file system are read without Parquet's vectored reads, through
   * the reader's options (so the scan's Hadoop configuration has it, and nothing else does);
   * narrow rows, and wide rows on another file system, keep them. Every row is read either way.
   */
  @Test
  void wideRowsOnTheLocalFileSystemAreReadWithoutVectoredReads() {
    String path = table(1);
    String key = ParquetInputFormat.HADOOP_VECTORED_IO_ENABLED;
    Dataset<Row> wide = ParquetInput.read(spark, path, true);
    assertEquals(Map.of(key, "false"), relationOptions(wide));
    assertEquals(800, wide.count());
    assertEquals(Map.of(), relationOptions(ParquetInput.read(spark, path, false)));
    assertEquals(Map.of(), relationOptions(ParquetInput.read(spark, path)));
    var conf = new org.apache.hadoop.conf.Configuration(spark.sparkContext().hadoopConfiguration());
    conf.set("fs.remote.impl", RemoteLikeFileSystem.class.getName());
    conf.setBoolean("fs.remote.impl.disable.cache", true);
    assertEquals(Map.of(), ParquetInput.readOptions(
        new org.apache.hadoop.fs.Path("remote:///bucket/t"), conf, true));
    assertEquals(Map.of(key, "false"), ParquetInput.readOptions(
        new org.apache.hadoop.fs.Path(path), conf, true));
  }

  /** A file system that names itself as a remote store does (its files are local). */
  public static final class RemoteLikeFileSystem extends org.apache.hadoop.fs.RawLocalFileSystem {
    @Override
    public String getScheme() {
      return "remote";
    }
  }

  /** The options of the Parquet relation {@code input} reads (one, as ParquetInput plans it). */
  private static Map<String, String> relationOptions(Dataset<Row> input) {
    var leaves = scala.jdk.javaapi.CollectionConverters.asJava(
        input.queryExecution().analyzed().collectLeaves());
    var relation = (org.apache.spark.sql.execution.datasources.HadoopFsRelation)
        ((org.apache.spark.sql.execution.datasources.LogicalRelation) leaves.get(0)).relation();
    Map<String, String> options = new java.util.TreeMap<>(
        scala.jdk.javaapi.CollectionConverters.asJava(relation.options()));
    options.remove("path");   // Spark's own
    return options;
  }

  @Test
  void oneRowGroupIsReadByEverySlotEachKeepingItsShareOfRows() {
    String path = table(1);
    Dataset<Row> input = ParquetInput.read(spark, path);
    SplitPlan plan = ParquetInput.splitPlan(input, SLOTS, spark.sparkContext().hadoopConfiguration());
    assertEquals(1, plan.rowGroups(), plan.reason());
    assertTrue(plan.splits() > 1, plan.reason());
    assertEquals(1, plan.busySplits(), plan.reason());
    assertEquals(800, plan.rows());
    assertEquals(SplitPlan.Spread.STRIDED_READS, plan.spread(), plan.reason());

    Dataset<Row> spread = ParquetInput.spread(input, plan, SLOTS, RowWeight.EVEN);
    assertEquals(input.schema(), spread.schema());
    List<Long> busy = rowsPerPartition(spread).stream().filter(r -> r > 0).toList();
    assertEquals(List.of(400L, 400L), busy, "every slot gets half of the rows");
    List<Long> ids = spread.select("id").as(Encoders.LONG()).collectAsList();
    assertEquals(800, ids.size());
    assertEquals(800, new HashSet<>(ids).size(), "no row twice");
    assertEquals(LongStream.range(0, 800).boxed().collect(Collectors.toSet()), new HashSet<>(ids));
  }

  /**
   * Texts of 100 words on even rows and 10 on odd ones, in one row group: by their weight the
   * two readers' words are within one long text of each other (every other row would give one
   * reader ten times the other's), every row once.
   */
  @Test
  void readersShareOneRowGroupByTheRowsWeight() {
    String path = tmp.resolve("texts").toString();
    spark.range(0, 800).withColumn("text",
        functions.expr("repeat('ab ', if(id % 2 = 0, 100, 10))")).repartition(1).write()
        .parquet(path);
    Dataset<Row> input = ParquetInput.read(spark, path);
    SplitPlan plan = ParquetInput.splitPlan(input, SLOTS, spark.sparkContext().hadoopConfiguration());
    assertEquals(SplitPlan.Spread.STRIDED_READS, plan.spread(), plan.reason());
    // weight in proportion to the tokens: no window, attention weighing nothing
    RowWeight tokens = new RowWeight("text", 0, false, 1e12);
    List<Long> even = wordsPerReader(ParquetInput.spread(input, plan, SLOTS, RowWeight.EVEN));
    assertEquals(List.of(400L * 100, 400L * 10), even, "every other row");
    Dataset<Row> shared = ParquetInput.spread(input, plan, SLOTS, tokens);
    List<Long> byWeight = wordsPerReader(shared);
    assertEquals(800 * 55L, byWeight.get(0) + byWeight.get(1));
    assertTrue(Math.abs(byWeight.get(0) - byWeight.get(1)) <= 100, "words " + byWeight);
    List<Long> ids = shared.select("id").as(Encoders.LONG()).collectAsList();
    assertEquals(LongStream.range(0, 800).boxed().collect(Collectors.toSet()), new HashSet<>(ids));
    assertEquals(800, ids.size(), "no row twice");
  }

  /** The words of text each partition that holds rows keeps. */
  private static List<Long> wordsPerReader(Dataset<Row> rows) {
    MapPartitionsFunction<Row, Long> words = (Iterator<Row> it) -> {
      long n = 0;
      while (it.hasNext()) {
        n += it.next().getString(1).length() / 3;
      }
      return List.of(n).iterator();
    };
    return rows.mapPartitions(words, Encoders.LONG()).collectAsList().stream()
        .filter(n -> n > 0).toList();
  }

  @Test
  void manyFilesAreReadAsTheyLie() {
    String path = table(8);
    Dataset<Row> input = ParquetInput.read(spark, path);
    SplitPlan plan = ParquetInput.splitPlan(input, SLOTS, spark.sparkContext().hadoopConfiguration());
    assertEquals(8, plan.rowGroups(), plan.reason());
    assertEquals(800, plan.rows());
    assertEquals(SplitPlan.Spread.AS_IT_LIES, plan.spread(), plan.reason());
    List<Long> rowsPerPartition = rowsPerPartition(ParquetInput.spread(input, plan, SLOTS, RowWeight.EVEN));
    assertEquals(plan.busySplits(), rowsPerPartition.stream().filter(r -> r > 0).count());
  }

  @Test
  void piecesHoldTheSameRowsInEveryRunAndSkippedPiecesAreEmpty() {
    for (int files : new int[] {1, 8}) {
      Dataset<Row> input = ParquetInput.read(spark, table(files));
      SplitPlan plan = ParquetInput.splitPlan(input, SLOTS,
          spark.sparkContext().hadoopConfiguration());
      int pieces = ParquetInput.pieceCount(plan, SLOTS, 20);
      assertTrue(pieces >= 20, plan.reason() + ": " + pieces);
      List<String> first = idsPerPartition(ParquetInput.inPieces(input, plan, pieces, Set.of(),
          RowWeight.EVEN));
      assertEquals(pieces, first.size(), plan.reason());
      List<Long> all = new ArrayList<>();
      for (String ids : first) {
        assertFalse(ids.isEmpty(), "every piece holds rows: " + first);
        Arrays.stream(ids.split(",")).map(Long::valueOf).forEach(all::add);
      }
      all.sort(null);
      assertEquals(LongStream.range(0, 800).boxed().toList(), all, "every row once");

      List<String> again = idsPerPartition(ParquetInput.inPieces(ParquetInput.read(spark,
          tmp.resolve("t" + files).toString()), plan, pieces, Set.of(1, 3), RowWeight.EVEN));
      for (int i = 0; i < pieces; i++) {
        assertEquals(i == 1 || i == 3 ? "" : first.get(i), again.get(i), "piece " + i);
      }
      // the same pieces' rows labelled with their number, each split read once
      Map<Integer, List<Long>> labelled = new java.util.TreeMap<>();
      for (Row r : ParquetInput.labelled(input, plan, pieces, Set.of(0, 2, pieces - 1),
          RowWeight.EVEN, "piece").select("piece", "id").collectAsList()) {
        labelled.computeIfAbsent(r.getInt(0), k -> new ArrayList<>()).add(r.getLong(1));
      }
      assertEquals(Set.of(0, 2, pieces - 1), labelled.keySet());
      for (Map.Entry<Integer, List<Long>> piece : labelled.entrySet()) {
        piece.getValue().sort(null);
        assertEquals(first.get(piece.getKey()), piece.getValue().stream().map(String::valueOf)
            .collect(Collectors.joining(",")), "piece " + piece.getKey());
      }
    }
  }

  /** Each partition's ids, sorted and joined by commas. */
  private static List<String> idsPerPartition(Dataset<Row> rows) {
    MapPartitionsFunction<Row, String> ids = (Iterator<Row> it) -> {
      List<Long> seen = new ArrayList<>();
      while (it.hasNext()) {
        seen.add(it.next().getLong(0));
      }
      seen.sort(null);
      return List.of(seen.stream().map(String::valueOf).collect(Collectors.joining(",")))
          .iterator();
    };
    return new ArrayList<>(rows.select("id").mapPartitions(ids, Encoders.STRING())
        .collectAsList());
  }

  private static List<Long> rowsPerPartition(Dataset<Row> rows) {
    MapPartitionsFunction<Row, Long> count = (Iterator<Row> it) -> {
      long n = 0;
      while (it.hasNext()) {
        it.next();
        n++;
      }
      return List.of(n).iterator();
    };
    return new ArrayList<>(rows.mapPartitions(count, Encoders.LONG()).collectAsList());
  }

  /**
   * A file rewritten with other rows of the same size and given back its modification time (cp
   * -p, rsync -t, a rewrite within the clock's resolution) is another file to a resumed run.
   */
  @Test
  void aRewriteThatKeepsSizeAndTimeChangesTheFilesIdentity() throws Exception {
    Path first = tmp.resolve("first");
    Path second = tmp.resolve("second");
    spark.sql("SELECT id, concat('text ', id) AS text FROM range(300)").coalesce(1).write()
        .option("compression", "none").parquet(first.toString());
    spark.sql("SELECT id, concat('tixt ', id) AS text FROM range(300)").coalesce(1).write()
        .option("compression", "none").parquet(second.toString());
    Path file = partFile(first);
    java.nio.file.attribute.FileTime time = java.nio.file.Files.getLastModifiedTime(file);
    byte[] rewritten = java.nio.file.Files.readAllBytes(partFile(second));
    assertEquals(java.nio.file.Files.size(file), rewritten.length, "same size, for the test");
    org.apache.hadoop.conf.Configuration conf = spark.sparkContext().hadoopConfiguration();
    List<java.util.Map<String, Object>> before =
        ParquetInput.files(spark.read().parquet(file.toString()), conf);
    java.nio.file.Files.write(file, rewritten);
    // Hadoop's checksum beside it would refuse the new bytes; pandas and DuckDB write none.
    java.nio.file.Files.delete(file.resolveSibling("." + file.getFileName() + ".crc"));
    java.nio.file.Files.setLastModifiedTime(file, time);
    List<java.util.Map<String, Object>> after =
        ParquetInput.files(spark.read().parquet(file.toString()), conf);
    assertEquals(before.get(0).get("size"), after.get(0).get("size"));
    assertEquals(before.get(0).get("modified"), after.get(0).get("modified"));
    assertTrue(!before.equals(after), before + " and " + after);
    assertEquals(before.get(0).keySet(), after.get(0).keySet());
  }

  private static Path partFile(Path table) throws java.io.IOException {
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(table)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".parquet")).findFirst()
          .orElseThrow();
    }
  }
}
