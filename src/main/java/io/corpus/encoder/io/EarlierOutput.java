package io.corpus.encoder.io;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Whether a folder is an output this job wrote, and so one {@code output.mode = overwrite} may
 * replace: its {@code run-summary.json} is one the job writes (a JSON object with the counts,
 * the model, the outputs and the reuse key), it holds {@code embeddings/}, and everything in it is
 * what the job writes: its tables ({@code part-} files, {@code _SUCCESS}, Hadoop's {@code .crc}
 * files, {@code key=value} partition folders), the report page, the summary, the marker and the plan of the pieces a resumable run kept. A
 * file of any other name anywhere in it, or a summary of another form, makes it a folder the job
 * did not write, whatever else it holds.
 */
final class EarlierOutput {
  /** The top-level entries an output may hold. */
  static final Set<String> ENTRIES = Set.of("embeddings", "rejects", "attention",
      "attention-norms", "rollout", "head-stats", "head-importance", "report", "run-summary.json", ".run-summary.json.crc", "_SUCCESS",
      "._SUCCESS.crc", OutputFolder.MARKER, OutputFolder.RESUME_PLAN,
      "." + OutputFolder.RESUME_PLAN + ".crc");
  private static final Set<String> SUMMARY_OBJECTS = Set.of("model", "outputs", "reuse_key");
  private static final Set<String> SUMMARY_COUNTS = Set.of("rows_read", "rows_written",
      "rows_rejected");
  private static final Pattern TABLE_FILE =
      Pattern.compile("part-[^/]+|_SUCCESS|\\..+\\.crc|_committed_\\d+|_started_\\d+");
  private static final Pattern PARTITION = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=[^/]*");
  private static final ObjectMapper JSON = new ObjectMapper();

  private EarlierOutput() {
  }

  /** Null when {@code folder} (which exists and is not empty) is this job's, else why not. */
  static String whyNotOurs(FileSystem fs, Path folder) throws IOException {
    Set<String> names = new TreeSet<>();
    for (FileStatus entry : fs.listStatus(folder)) {
      names.add(entry.getPath().getName());
    }
    Set<String> strangers = new TreeSet<>(names);
    strangers.removeAll(ENTRIES);
    if (!strangers.isEmpty()) {
      return "it holds " + shortList(strangers);
    }
    if (!names.contains("run-summary.json") || !names.contains("embeddings")) {
      return "it has no " + (names.contains("embeddings") ? "run-summary.json" : "embeddings/")
          + "; it holds " + shortList(names);
    }
    String summary = summaryProblem(fs, new Path(folder, "run-summary.json"));
    if (summary != null) {
      return "its run-summary.json " + summary;
    }
    for (String table : names) {
      Path path = new Path(folder, table);
      if (fs.getFileStatus(path).isDirectory()) {
        String stranger = strangerIn(fs, path, table, table.equals("report"));
        if (stranger != null) {
          return "it holds " + stranger + ", which the job does not write";
        }
      } else if (!table.endsWith(".json") && !table.endsWith(".crc")
          && !table.equals(OutputFolder.MARKER) && !table.equals("_SUCCESS")) {
        return "it holds " + table + " as a file";
      }
    }
    return null;
  }

  /** Null when {@code summary} reads as a run summary of this job, else what is wrong. */
  private static String summaryProblem(FileSystem fs, Path summary) throws IOException {
    if (!fs.getFileStatus(summary).isFile()) {
      return "is not a file";
    }
    JsonNode root;
    try (InputStream in = fs.open(summary)) {
      root = JSON.readTree(in);
    } catch (IOException e) {
      return "is not JSON";
    }
    if (root == null || !root.isObject()) {
      return "is not a JSON object";
    }
    List<String> missing = new ArrayList<>();
    for (String count : new TreeSet<>(SUMMARY_COUNTS)) {
      if (!root.path(count).isIntegralNumber()) {
        missing.add(count);
      }
    }
    for (String object : new TreeSet<>(SUMMARY_OBJECTS)) {
      if (!root.path(object).isObject()) {
        missing.add(object);
      }
    }
    return missing.isEmpty() ? null : "is not one this job writes (no " + String.join(", ",
        missing) + ")";
  }

  /** The first entry under a table folder that the job does not write, or null. */
  private static String strangerIn(FileSystem fs, Path dir, String shown, boolean report)
      throws IOException {
    for (FileStatus entry : fs.listStatus(dir)) {
      String name = entry.getPath().getName();
      String here = shown + "/" + name;
      if (entry.isDirectory()) {
        if (report || !PARTITION.matcher(name).matches()) {
          return here + "/";
        }
        String inner = strangerIn(fs, entry.getPath(), here, false);
        if (inner != null) {
          return inner;
        }
      } else if (report ? !(name.equals("index.html") || name.equals(".index.html.crc"))
          : !TABLE_FILE.matcher(name).matches()) {
        return here;
      }
    }
    return null;
  }

  static String shortList(Set<String> names) {
    List<String> list = new ArrayList<>(names);
    return list.size() <= 5 ? String.join(", ", list)
        : String.join(", ", list.subList(0, 5)) + " and " + (list.size() - 5) + " more";
  }
}
