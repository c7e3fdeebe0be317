package io.corpus.encoder.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * {@code TableDigests ROOT}: one line for every Parquet table under ROOT, "{@code key rows
 * digest}": the key is the table's path below ROOT's first level (a test's temporary folder,
 * whose name differs run to run), the digest a SHA-256 of its schema and its rows as JSON in
 * sorted order (every float as Java prints it, so one differing bit differs). Two builds' lines,
 * sorted, are the same exactly when every table holds the same rows (jobs/benchmarks/same-tables).
 */
public final class TableDigests {
  private TableDigests() {}

  public static void main(String[] args) throws IOException {
    Path root = Path.of(args[0]);
    SparkSession spark = OneCoreSession.start("table-digests");
    for (Path table : tables(root)) {
      Path below = root.relativize(table);
      String key = below.getNameCount() > 1 ? below.subpath(1, below.getNameCount()).toString()
          : below.toString();
      System.out.println(key + " " + digest(spark, table));
    }
    spark.stop();
  }

  /** The folders holding Parquet files (a partition's folder counts as its table's). */
  static TreeSet<Path> tables(Path root) throws IOException {
    TreeSet<Path> tables = new TreeSet<>();
    try (Stream<Path> files = Files.walk(root)) {
      files.filter(f -> f.getFileName().toString().endsWith(".parquet") && Files.isRegularFile(f))
          .filter(f -> !hidden(root.relativize(f)))
          .forEach(f -> {
            Path table = f.getParent();
            while (table.getFileName().toString().contains("=")) {
              table = table.getParent();
            }
            tables.add(table);
          });
    }
    return tables;
  }

  /** Whether a path passes through a folder Spark leaves for itself (_temporary, .staging). */
  private static boolean hidden(Path below) {
    for (Path part : below) {
      String name = part.toString();
      if (name.startsWith("_") || name.startsWith(".")) {
        return true;
      }
    }
    return false;
  }

  private static String digest(SparkSession spark, Path table) {
    try {
      Dataset<Row> rows = spark.read().parquet(table.toString());
      List<String> json = new ArrayList<>(rows.toJSON().collectAsList());
      json.sort(null);
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(rows.schema().json().getBytes(StandardCharsets.UTF_8));
      for (String row : json) {
        sha.update(row.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) '\n');
      }
      return json.size() + " " + HexFormat.of().formatHex(sha.digest());
    } catch (RuntimeException e) {
      return "unreadable " + e.getClass().getSimpleName();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
