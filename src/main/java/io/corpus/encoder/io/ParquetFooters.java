package io.corpus.encoder.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/**
 * What Parquet footers say about a set of files: rows, and where each row group lies. Read on the
 * driver, several footers at a time, without a Spark job (a count job costs seconds of scheduling
 * and code generation before the real work starts). Driver only.
 */
public final class ParquetFooters {
  private ParquetFooters() {}

  /**
   * One row group as a reader split sees it.
   *
   * @param midpoint byte offset of the middle of its column chunks: Parquet's readers give a row
   *     group to the split that holds this offset, so a row group is never split
   * @param rows rows it holds
   * @param bytes its uncompressed size, a measure of the work its rows are
   */
  public record RowGroup(long midpoint, long rows, long bytes) {}

  /** Rows of the data files under {@code folder}, at any depth; names starting with _ or . are
   *  Spark's markers and checksums, not data. */
  public static long rowCountOfFolder(String folder, Configuration conf) {
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
    return rowCount(rowGroups(files, conf).values());
  }

  /** Rows in all the given files' row groups. */
  public static long rowCount(Collection<List<RowGroup>> files) {
    long total = 0;
    for (List<RowGroup> groups : files) {
      for (RowGroup group : groups) {
        total += group.rows();
      }
    }
    return total;
  }

  /** The row groups of each file, keyed by the file's path as given, in the given order. */
  public static Map<String, List<RowGroup>> rowGroups(Collection<String> files,
      Configuration conf) {
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(8, Math.max(1, files.size())));
    try {
      Map<String, Future<List<RowGroup>>> pending = new LinkedHashMap<>();
      for (String file : files) {
        pending.put(file, pool.submit(() -> read(new Path(file), conf)));
      }
      Map<String, List<RowGroup>> byFile = new LinkedHashMap<>();
      for (Map.Entry<String, Future<List<RowGroup>>> entry : pending.entrySet()) {
        try {
          byFile.put(entry.getKey(), entry.getValue().get());
        } catch (ExecutionException e) {
          throw unreadable(entry.getKey(), e.getCause());
        }
      }
      return byFile;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while reading Parquet footers", e);
    } finally {
      pool.shutdownNow();
    }
  }

  /** The failure to read {@code file}'s footer, naming the file and what Parquet said. */
  static UncheckedIOException unreadable(String file, Throwable cause) {
    return new UncheckedIOException("Cannot read the Parquet footer of " + file + " (a damaged "
        + "or truncated file, or not Parquet): " + cause.getMessage(),
        cause instanceof IOException io ? io : new IOException(cause));
  }

  /** The row groups of one file, read on this thread. */
  static List<RowGroup> read(Path file, Configuration conf) throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf))) {
      List<RowGroup> groups = new ArrayList<>();
      for (BlockMetaData block : reader.getFooter().getBlocks()) {
        // The same midpoint parquet-mr's range filter uses (ParquetMetadataConverter).
        groups.add(new RowGroup(block.getStartingPos() + block.getCompressedSize() / 2,
            block.getRowCount(), block.getTotalByteSize()));
      }
      return groups;
    }
  }
}
