package io.corpus.encoder.io;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * The first rows of some string columns of a table's files, read without Spark: a sample for the
 * checks a job makes before it starts. Each file gives an equal share of the rows, from its first
 * row group; a row group whose sampled columns hold more than {@link #MOST_CHUNK_BYTES} is passed
 * over (its column chunks would be read whole for a few rows), as is a file without those
 * columns. Driver only.
 */
public final class ParquetSample {
  /** The compressed bytes of a row group's sampled columns above which it is not sampled. */
  public static final long MOST_CHUNK_BYTES = 64L << 20;

  private ParquetSample() {}

  /**
   * What was sampled.
   *
   * @param rows each row's values of the columns, in their order; null for a null value
   * @param files the files rows came from
   * @param passedOver files none came from: their first row group too large to sample, or
   *     without the columns
   */
  public record Sample(List<String[]> rows, int files, int passedOver) {}

  /** At most {@code limit} rows of {@code columns}, the first of each of {@code files}. */
  public static Sample of(List<String> files, List<String> columns, int limit,
      Configuration conf) {
    List<String[]> rows = new ArrayList<>();
    int sampled = 0;
    int passedOver = 0;
    int share = Math.max(1, -Math.floorDiv(-limit, Math.max(1, files.size())));
    for (String file : files) {
      if (rows.size() >= limit) {
        break;
      }
      int before = rows.size();
      read(new Path(file), columns, Math.min(share, limit - rows.size()), conf, rows);
      if (rows.size() > before) {
        sampled++;
      } else {
        passedOver++;
      }
    }
    return new Sample(rows, sampled, passedOver);
  }

  private static void read(Path file, List<String> columns, int most, Configuration conf,
      List<String[]> rows) {
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(file,
        conf))) {
      MessageType schema = reader.getFooter().getFileMetaData().getSchema();
      List<Type> fields = new ArrayList<>();
      for (String column : columns) {
        if (!schema.containsField(column) || !schema.getType(column).isPrimitive()) {
          return;
        }
        fields.add(schema.getType(column));
      }
      List<BlockMetaData> groups = reader.getRowGroups();
      if (groups.isEmpty() || chunkBytes(groups.get(0), columns) > MOST_CHUNK_BYTES) {
        return;
      }
      MessageType projection = new MessageType(schema.getName(), fields);
      reader.setRequestedSchema(projection);
      PageReadStore pages = reader.readNextRowGroup();
      if (pages == null) {
        return;
      }
      RecordReader<Group> records = new ColumnIOFactory().getColumnIO(projection)
          .getRecordReader(pages, new GroupRecordConverter(projection));
      for (long r = 0; r < Math.min(most, pages.getRowCount()); r++) {
        Group g = records.read();
        String[] values = new String[columns.size()];
        for (int c = 0; c < values.length; c++) {
          values[c] = g.getFieldRepetitionCount(c) == 0 ? null : g.getString(c, 0);
        }
        rows.add(values);
      }
    } catch (IOException | RuntimeException e) {
      throw new java.io.UncheckedIOException("Cannot read the first rows of " + file + " (a "
          + "damaged or truncated file, or not Parquet): " + e.getMessage(),
          e instanceof IOException io ? io : new IOException(e));
    }
  }

  /** The compressed bytes of {@code columns}' chunks in {@code group}. */
  private static long chunkBytes(BlockMetaData group, List<String> columns) {
    long bytes = 0;
    for (ColumnChunkMetaData chunk : group.getColumns()) {
      if (chunk.getPath().size() == 1 && columns.contains(chunk.getPath().toArray()[0])) {
        bytes += chunk.getTotalSize();
      }
    }
    return bytes;
  }
}
