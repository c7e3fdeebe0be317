package io.corpus.encoder.io;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.common.JsonDifference;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pieces of a table that a run keeps in its staging folder as it writes them, so that the
 * run, killed and started again, does not compute them twice.
 *
 * <p>A piece is one task of the table's write: the input is cut into numbered partitions that
 * hold the same rows in every run with the same identity, and each task's file is moved into
 * the table when the task commits (Hadoop's file committer, algorithm 2), named after its
 * partition: {@code part-00012-…}. The staging folder's {@value OutputFolder#RESUME_PLAN}
 * holds the identity (input files with sizes and times, splits, the model's fingerprint, the
 * settings that shape a row) and the number of pieces. A run that took over a killed run's
 * staging folder ({@link OutputFolder#resumedFrom()}) reuses its pieces only if that identity is
 * the same, and only files whose footer reads and holds rows, one per piece; anything else in
 * that folder (the killed run's own, by its name) is removed. Driver only.
 */
public final class KeptPieces {
  private static final Logger LOG = LoggerFactory.getLogger(KeptPieces.class);
  private static final Pattern PIECE = Pattern.compile("part-(\\d+)-[^/]*\\.parquet");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A reused piece's file and the rows its footer counts. */
  private record Kept(FileStatus file, long rows) {}

  private final int pieces;
  private final String note;
  private final SortedMap<Integer, Kept> kept;   // the reused pieces, by number

  private KeptPieces(int pieces, String note, SortedMap<Integer, Kept> kept) {
    this.pieces = pieces;
    this.note = note;
    this.kept = Collections.unmodifiableSortedMap(kept);
  }

  /** No piece reused, and why ({@code note}; null for a fresh start). */
  private static KeptPieces none(int pieces, String note) {
    return new KeptPieces(pieces, note, new TreeMap<>());
  }

  /**
   * Checks what a killed run kept for {@code table} in {@code out}'s staging folder, clears what
   * is not reused, and writes this run's plan.
   *
   * @param identity what a piece's rows depend on, as JSON-like maps, lists and values
   * @param pieces how many pieces this run would cut the input into; a kept plan with the same
   *     identity keeps its own count, so that its pieces stay the same rows
   */
  public static KeptPieces open(OutputFolder out, String table, Map<String, Object> identity,
      int pieces, Configuration conf) {
    Path staging = new Path(out.staging());
    Path plan = new Path(staging, OutputFolder.RESUME_PLAN);
    try {
      FileSystem fs = staging.getFileSystem(conf);
      JsonNode wanted = JsonDifference.of(identity);
      KeptPieces kept = none(pieces, null);
      if (out.resumedFrom() != null && fs.exists(plan)) {
        JsonNode earlier;
        try (InputStream in = fs.open(plan)) {
          earlier = JSON.readTree(in);
        }
        String difference = JsonDifference.first(earlier.path("identity"), wanted);
        int count = earlier.path("pieces").asInt(0);
        kept = difference == null && count > 0
            ? check(fs, new Path(staging, table), count, out.resumedFrom())
            : none(pieces, "the pieces run " + out.resumedFrom()
                + " kept are not reused: " + (difference == null ? "its plan has no piece count"
                : difference));
      }
      fs.mkdirs(staging);
      for (FileStatus entry : fs.listStatus(staging)) {
        String name = entry.getPath().getName();
        if (!name.equals(OutputFolder.RESUME_PLAN) && !(name.equals(table) && kept.rows() > 0)) {
          fs.delete(entry.getPath(), true);
        }
      }
      try (OutputStream os = fs.create(plan, true)) {
        JSON.writerWithDefaultPrettyPrinter().writeValue(os,
            Map.of("identity", wanted, "pieces", kept.pieces));
      }
      if (kept.note != null) {
        LOG.info(kept.note);
      }
      return kept;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read or write the pieces kept in " + staging, e);
    }
  }

  /** The kept pieces of a plan whose identity matched: one readable file with rows each. */
  private static KeptPieces check(FileSystem fs, Path folder, int pieces, String from)
      throws IOException {
    SortedMap<Integer, Kept> kept = new TreeMap<>();
    if (fs.exists(folder)) {
      for (FileStatus file : fs.listStatus(folder)) {
        String name = file.getPath().getName();
        Matcher piece = PIECE.matcher(name);
        if (name.equals("_temporary")) {
          fs.delete(file.getPath(), true);   // the killed run's unfinished tasks
          continue;
        }
        if (!piece.matches()) {
          continue;   // _SUCCESS, checksums
        }
        int index = Integer.parseInt(piece.group(1));
        long count = rowsOrZero(file.getPath(), fs.getConf());
        if (index >= pieces || count == 0 || kept.containsKey(index)) {
          fs.delete(file.getPath(), false);
          fs.delete(new Path(folder, "." + name + ".crc"), false);
          continue;
        }
        kept.put(index, new Kept(file, count));
      }
    }
    long rows = kept.values().stream().mapToLong(Kept::rows).sum();
    return new KeptPieces(pieces, String.format("resuming: %d of %d pieces (%d rows) kept by run "
        + "%s are reused", kept.size(), pieces, rows, from), kept);
  }

  /** The files of the reused pieces, in the order of their numbers. */
  public List<String> files() {
    return kept.values().stream().map(k -> k.file().getPath().toString()).toList();
  }

  /**
   * These pieces less {@code stale}, whose files are deleted: rows of theirs the input no longer
   * holds as they were, so their partitions are computed again.
   */
  public KeptPieces without(Set<Integer> stale, Configuration conf) {
    if (stale.isEmpty()) {
      return this;
    }
    SortedMap<Integer, Kept> left = new TreeMap<>(kept);
    try {
      for (int piece : stale) {
        Kept gone = left.remove(piece);
        if (gone == null) {
          continue;
        }
        Path file = gone.file().getPath();
        FileSystem fs = file.getFileSystem(conf);
        fs.delete(file, false);
        fs.delete(new Path(file.getParent(), "." + file.getName() + ".crc"), false);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot remove a kept piece the input no longer matches",
          e);
    }
    long rows = left.values().stream().mapToLong(Kept::rows).sum();
    return new KeptPieces(pieces, String.format("resuming: %d of %d pieces (%d rows) kept by the "
        + "killed run are reused; %d more it kept are computed again, their rows not the "
        + "input's rows now (pieces %s)", left.size(), pieces, rows, stale.size(), stale), left);
  }

  /** Rows in the file's footer; 0 if it cannot be read (a file the kill cut short). */
  private static long rowsOrZero(Path file, Configuration conf) {
    try {
      return ParquetFooters.rowCount(List.of(ParquetFooters.read(file, conf)));
    } catch (IOException | RuntimeException e) {
      LOG.warn("Not reusing the kept piece {}: its footer cannot be read ({})", file.getName(),
          e.getClass().getSimpleName());
      return 0;
    }
  }

  /** How many pieces the input is cut into. */
  public int pieces() {
    return pieces;
  }

  /** The numbers of the pieces kept and reused: their partitions need not be computed. */
  public Set<Integer> done() {
    return kept.keySet();
  }

  /** Rows in the reused pieces. */
  public long rows() {
    return kept.values().stream().mapToLong(Kept::rows).sum();
  }

  /** What was resumed, or why the kept pieces were not reused; null for a fresh start. */
  public String note() {
    return note;
  }
}
