package io.corpus.encoder.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
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
  private final SparkSession spark = SparkTestSession.get();

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

    Dataset<Row> spread = ParquetInput.spread(input, plan, SLOTS);
    assertEquals(input.schema(), spread.schema());
    List<Long> busy = rowsPerPartition(spread).stream().filter(r -> r > 0).toList();
    assertEquals(List.of(400L, 400L), busy, "every slot gets half of the rows");
    List<Long> ids = spread.select("id").as(Encoders.LONG()).collectAsList();
    assertEquals(800, ids.size());
    assertEquals(800, new HashSet<>(ids).size(), "no row twice");
    assertEquals(LongStream.range(0, 800).boxed().collect(Collectors.toSet()), new HashSet<>(ids));
  }

  @Test
  void manyFilesAreReadAsTheyLie() {
    String path = table(8);
    Dataset<Row> input = ParquetInput.read(spark, path);
    SplitPlan plan = ParquetInput.splitPlan(input, SLOTS, spark.sparkContext().hadoopConfiguration());
    assertEquals(8, plan.rowGroups(), plan.reason());
    assertEquals(800, plan.rows());
    assertEquals(SplitPlan.Spread.AS_IT_LIES, plan.spread(), plan.reason());
    List<Long> rowsPerPartition = rowsPerPartition(ParquetInput.spread(input, plan, SLOTS));
    assertEquals(plan.busySplits(), rowsPerPartition.stream().filter(r -> r > 0).count());
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
}
