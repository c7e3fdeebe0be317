package io.corpus.encoder.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/**
 * Rows in a set of Parquet files, from their footers: exact, and without a Spark job (a count job
 * costs seconds of scheduling and code generation before the real work starts). Driver only.
 */
public final class ParquetRowCount {
  private ParquetRowCount() {}

  /** Rows of the data files under {@code folder}, at any depth; names starting with _ or . are
   *  Spark's markers and checksums, not data. */
  public static long ofFolder(String folder, Configuration conf) {
    List<String> files = new ArrayList<>();
    try {
      Path root = new Path(folder);
      RemoteIterator<LocatedFileStatus> it = root.getFileSystem(conf).listFiles(root, true);
      while (it.hasNext()) {
        Path file = it.next().getPath();
        if (!file.getName().startsWith("_") && !file.getName().startsWith(".")) {
          files.add(file.toString());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + folder, e);
    }
    return of(files.toArray(new String[0]), conf);
  }

  /** Rows of the given Parquet files. */
  public static long of(String[] files, Configuration conf) {
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(8, Math.max(1, files.length)));
    try {
      List<Future<Long>> counts = new ArrayList<>();
      for (String file : files) {
        counts.add(pool.submit(() -> {
          try (ParquetFileReader reader = ParquetFileReader.open(
              HadoopInputFile.fromPath(new Path(file), conf))) {
            return reader.getRecordCount();
          }
        }));
      }
      long total = 0;
      for (Future<Long> count : counts) {
        total += count.get();
      }
      return total;
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      throw new UncheckedIOException("Cannot read a Parquet footer: " + cause.getMessage(),
          cause instanceof IOException io ? io : new IOException(cause));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while counting input rows", e);
    } finally {
      pool.shutdownNow();
    }
  }
}
