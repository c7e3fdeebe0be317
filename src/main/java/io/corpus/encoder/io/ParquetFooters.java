package io.corpus.encoder.io;

import io.corpus.encoder.common.Sha256;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
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
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;

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
    return rowCount(rowGroups(dataFiles(folder, conf), conf).values());
  }

  /** The data files under {@code folder}, at any depth (not Spark's _ and . files). */
  public static List<String> dataFiles(String folder, Configuration conf) {
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
    return files;
  }

  /** The Parquet schema in each file's footer, keyed as given. */
  public static Map<String, MessageType> schemas(Collection<String> files, Configuration conf) {
    return eachFile(files, file -> {
      try (ParquetFileReader reader = ParquetFileReader.open(
          HadoopInputFile.fromPath(new Path(file), conf))) {
        return reader.getFooter().getFileMetaData().getSchema();
      }
    });
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
    return eachFile(files, file -> read(new Path(file), conf));
  }

  /**
   * The SHA-256 of each file's footer bytes (its schema, row groups, column chunks' offsets,
   * sizes and statistics), keyed as given: what a rewrite of a file changes even when it keeps
   * its size and modification time.
   */
  public static Map<String, String> footerDigests(Collection<String> files,
      Configuration conf) {
    return eachFile(files, file -> footerDigest(new Path(file), conf));
  }

  private interface FileReader<T> {
    T read(String file) throws IOException;
  }

  /** {@code reader} on every file, several at a time, in the given order. */
  private static <T> Map<String, T> eachFile(Collection<String> files, FileReader<T> reader) {
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(8, Math.max(1, files.size())));
    try {
      Map<String, Future<T>> pending = new LinkedHashMap<>();
      for (String file : files) {
        pending.put(file, pool.submit(() -> reader.read(file)));
      }
      Map<String, T> byFile = new LinkedHashMap<>();
      for (Map.Entry<String, Future<T>> entry : pending.entrySet()) {
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

  /** SHA-256 of the footer: the bytes between the data and the footer's length and "PAR1". */
  static String footerDigest(Path file, Configuration conf) throws IOException {
    FileSystem fs = file.getFileSystem(conf);
    long size = fs.getFileStatus(file).getLen();
    try (FSDataInputStream in = fs.open(file)) {
      byte[] tail = new byte[8];
      if (size < 12) {
        throw new IOException(size + " bytes: too short for Parquet");
      }
      in.readFully(size - 8, tail);
      int length = ByteBuffer.wrap(tail, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
      if (!new String(tail, 4, 4, StandardCharsets.US_ASCII).equals("PAR1") || length < 0
          || length > size - 12) {
        throw new IOException("no Parquet footer at its end");
      }
      byte[] footer = new byte[length];
      in.readFully(size - 8 - length, footer);
      return "sha256:" + Sha256.hex(footer);
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
