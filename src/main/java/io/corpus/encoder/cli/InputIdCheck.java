package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;

import io.corpus.encoder.common.OwnThread;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Tuple2;

/**
 * Whether any id repeats in the input, counted on a thread of its own as the encoding starts.
 * The job writes at most one row per input row, so when no id repeats there, none repeats in
 * the written table and {@link DuplicateIds} need not read it back: that Spark job cost about
 * 2 s after every run (10,000 rows here). Started once the job is planned (every refusal comes
 * before any Spark work), the count's planning and code generation take the driver's idle time
 * and its tasks read the id column alone, a fraction of a second beside the encoding. It is one
 * job of two stages on the RDD API, which the scheduler runs back to back as slots free up (the
 * last encoding task's): as SQL's count and countDistinct, adaptive execution planned each
 * stage after the one before as a job of its own, and 0.37 s of it ran after the encoding. The
 * ids are compared as strings (Spark's cast): two that differ cast alike at most (a binary id
 * that is not UTF-8), which only sends the job to read the written table. Closing it cancels the
 * count if it has not ended.
 */
final class InputIdCheck implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(InputIdCheck.class);

  private final SparkContext context;
  private final String group = "input-ids-" + UUID.randomUUID();
  private final CompletableFuture<Boolean> unique;

  private InputIdCheck(SparkContext context, Dataset<Row> input, String idColumn) {
    this.context = context;
    this.unique = CompletableFuture.supplyAsync(() -> {
      context.setJobGroup(group, "counting the input's ids", true);
      // null ids are set aside as rejects, never written: only the others count
      // Spark's own rows: javaRDD()'s conversion to Row first initialises Scala's reflection,
      // 1.1 CPU-seconds in a task beside the encoding where nothing else needs it
      return input.select(col(idColumn).cast("string")).queryExecution().toRdd().toJavaRDD()
          .filter(row -> !row.isNullAt(0))
          .mapToPair(row -> new Tuple2<>(row.getUTF8String(0).toString(), 1L))
          .reduceByKey(Long::sum)
          .filter(idAndCount -> idAndCount._2() > 1)
          .count() == 0;
    }, OwnThread.named("input-id-check"));
  }

  /** Starts counting the ids of {@code input}'s {@code idColumn}. */
  static InputIdCheck start(SparkContext context, Dataset<Row> input, String idColumn) {
    return new InputIdCheck(context, input, idColumn);
  }

  /**
   * True when no id repeats in the input, waiting for the count; false when one does or the
   * count failed (then the written table is read to find out).
   */
  boolean unique() {
    try {
      return unique.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException e) {
      LOG.warn("counting the input's ids failed ({}): the written table is read for them "
          + "instead", e.getCause().toString());
      return false;
    }
  }

  @Override
  public void close() {
    if (!unique.isDone()) {
      context.cancelJobGroup(group);
    }
  }
}
