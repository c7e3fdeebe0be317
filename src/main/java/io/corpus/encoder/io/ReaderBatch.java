package io.corpus.encoder.io;

import io.corpus.encoder.io.ParquetFooters.RowGroup;
import java.util.Collection;
import java.util.List;

/**
 * Rows per batch of Spark's vectorized Parquet reader ({@code
 * spark.sql.parquet.columnarReaderBatchSize}), from the rows' size in the files' footers.
 *
 * <p>A batch holds each value of a list column with its repetition and definition levels, as
 * ints, and its vectors live as long as the task reads: about 13 bytes a float. For rows of
 * token vectors (T × E floats) a batch of 64 rows is 80 MB per task at 128 × 768 and about 5 GB at
 * 8,192 × 768, which the young collections copy while it lives. So a batch holds about {@link
 * #BYTES} of uncompressed row data, rows as wide as the widest row group's average, and never
 * more rows than {@code execution.reader-batch-rows}: rows of text or token ids stay at that.
 */
public final class ReaderBatch {
  /** Uncompressed bytes of rows a batch aims at: about 13 MB of vectors per task for floats. */
  static final long BYTES = 4L << 20;

  private ReaderBatch() {}

  /** At most {@code configured} rows, fewer where the rows of {@code files} are wide. */
  public static int rows(int configured, Collection<List<RowGroup>> files) {
    long widest = 0;
    for (List<RowGroup> groups : files) {
      for (RowGroup group : groups) {
        if (group.rows() > 0) {
          widest = Math.max(widest, Math.max(1, group.bytes() / group.rows()));
        }
      }
    }
    return widest == 0 ? configured : (int) Math.max(1, Math.min(configured, BYTES / widest));
  }
}
