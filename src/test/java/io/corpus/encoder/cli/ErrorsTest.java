package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.spark.SparkException;
import org.junit.jupiter.api.Test;

/** The one line a failed job prints, from the chains Spark and Hadoop throw. */
class ErrorsTest {
  @Test
  void aFullDiskNamesTheFolderBeingWritten() {
    // As a task that ran out of space threw it (a tmpfs of 300 KB, this job's own run).
    IOException full = new IOException("No space left on device");
    SparkException task = new SparkException("[TASK_WRITE_FAILED] Task failed while writing rows "
        + "to file:/mnt/tiny/o/.vectors.staging-4316/embeddings. SQLSTATE: 58030",
        new RuntimeException("org.apache.hadoop.fs.FSError: " + full, full));
    SparkException job = new SparkException("Job aborted due to stage failure: Task 0 in stage "
        + "0.0 failed 1 times, most recent failure: Lost task 0.0\n" + task.getMessage(), task);
    assertEquals("No space left on device while writing /mnt/tiny/o/.vectors.staging-4316/"
        + "embeddings (nothing is committed: the output path is as it was)",
        Errors.describe(job));
  }

  @Test
  void ourContextComesBeforeTheCause() {
    UncheckedIOException e = new UncheckedIOException("Cannot read the Parquet footer of "
        + "file:/d/part-1.parquet (a damaged or truncated file, or not Parquet): footer is too "
        + "large", new IOException("footer is too large"));
    assertEquals("Cannot read the Parquet footer of file:/d/part-1.parquet (a damaged or "
        + "truncated file, or not Parquet): footer is too large",
        Errors.describe(new RuntimeException(e)));
    assertEquals("Cannot list /out: Permission denied", Errors.describe(
        new UncheckedIOException("Cannot list /out", new IOException("Permission denied"))));
    assertEquals("something else", Errors.describe(new IllegalStateException("wrapped",
        new IOException("something else\nwith a second line"))));
  }
}
