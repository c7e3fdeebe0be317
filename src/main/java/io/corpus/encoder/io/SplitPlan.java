package io.corpus.encoder.io;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.corpus.encoder.io.ParquetFooters.RowGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Whether the reader's splits keep every task slot busy, decided from the Parquet footers before
 * any task runs, and if not, how the rows are spread. A Parquet reader never splits a row group,
 * so one file with one row group (as pandas, pyarrow, DuckDB and Polars write a table) is one busy
 * task however many byte ranges Spark cuts the file into.
 *
 * <p>The work of a split is the uncompressed bytes of the row groups whose midpoint it holds.
 * Splits are run in order, each on the slot that frees first (as Spark's scheduler does); the
 * balance is the ideal time (all work / slots) over the time the last slot finishes.
 *
 * @param splits reader splits (Spark partitions)
 * @param busySplits splits that hold at least one row group
 * @param rowGroups row groups in all files
 * @param rows rows in all files
 * @param bytes uncompressed bytes of all row groups (a measure of the work)
 * @param balance ideal over simulated time, in (0, 1]; 1 when there is nothing to do
 * @param spread how the rows reach the encoder's tasks
 * @param reason one sentence on why, for the log and the run summary
 * @param busy the numbers of the splits that hold at least one row group, in order (every
 *     split when they are not plain file ranges)
 */
public record SplitPlan(int splits, int busySplits, int rowGroups, long rows, long bytes,
    double balance, Spread spread, String reason, @JsonIgnore List<Integer> busy) {

  /** Below this balance spreading the rows pays for itself (it costs about a second here). */
  static final double MIN_BALANCE = 0.8;

  /** How rows reach the encoder's tasks. */
  public enum Spread {
    /** The reader's splits as they are. */
    AS_IT_LIES,
    /**
     * One reader per task slot, each reading every file whole and keeping the rows whose index
     * in their file is its number modulo the readers: decoding is cheap next to the encoder
     * (256 rows of 128 x 768 floats: 0.5 task-seconds), a shuffle of the same rows is not
     * (4 to 6 seconds of serializing and writing on one core here).
     */
    STRIDED_READS,
    /** A round-robin shuffle, for inputs that are not a plain scan of Parquet files. */
    SHUFFLE
  }

  /** One byte range of one file, as a reader split holds it. */
  public record FileRange(String file, long start, long length) {}

  /**
   * Plans for {@code slots} task slots.
   *
   * @param splits each reader split's file ranges, in split order
   * @param rowGroups the row groups of every file the ranges name
   */
  public static SplitPlan of(List<List<FileRange>> splits, Map<String, List<RowGroup>> rowGroups,
      int slots) {
    long[] work = new long[splits.size()];
    long[] rowsPerSplit = new long[splits.size()];
    for (int s = 0; s < splits.size(); s++) {
      for (FileRange range : splits.get(s)) {
        for (RowGroup group : rowGroups.getOrDefault(range.file(), List.of())) {
          if (group.midpoint() >= range.start()
              && group.midpoint() < range.start() + range.length()) {
            work[s] += Math.max(1, group.bytes());
            rowsPerSplit[s] += group.rows();
          }
        }
      }
    }
    int groupCount = rowGroups.values().stream().mapToInt(List::size).sum();
    return decide(work, rowsPerSplit, groupCount, slots);
  }

  static SplitPlan decide(long[] work, long[] rowsPerSplit, int rowGroups, int slots) {
    long total = 0;
    long rows = 0;
    List<Integer> busySplits = new ArrayList<>();
    for (int s = 0; s < work.length; s++) {
      total += work[s];
      rows += rowsPerSplit[s];
      if (work[s] > 0) {
        busySplits.add(s);
      }
    }
    int busy = busySplits.size();
    double balance = total == 0 ? 1.0 : (double) total / slots / makespan(work, slots);
    String layout = String.format("%d row groups in %d splits, %d of them with rows, "
        + "balance %.2f on %d task slots", rowGroups, work.length, busy, balance, slots);
    if (balance >= MIN_BALANCE) {
      return new SplitPlan(work.length, busy, rowGroups, rows, total, balance,
          Spread.AS_IT_LIES, layout + ": read as it lies", busySplits);
    }
    if (rows <= busy) {
      return new SplitPlan(work.length, busy, rowGroups, rows, total, balance,
          Spread.AS_IT_LIES, layout + ": no more rows than busy splits, nothing to spread",
          busySplits);
    }
    return new SplitPlan(work.length, busy, rowGroups, rows, total, balance,
        Spread.STRIDED_READS,
        layout + ": row groups cannot be split, so each of " + slots + " tasks reads the input "
            + "and keeps its share of the rows by their estimated work", busySplits);
  }

  /** When the last slot finishes, splits taken in order by the slot that frees first. */
  private static long makespan(long[] work, int slots) {
    PriorityQueue<Long> freeAt = new PriorityQueue<>();
    for (int i = 0; i < slots; i++) {
      freeAt.add(0L);
    }
    long end = 0;
    for (long w : work) {
      long finish = freeAt.poll() + w;
      end = Math.max(end, finish);
      freeAt.add(finish);
    }
    return end;
  }
}
