package io.corpus.encoder.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The project's {@code jobs/} scripts as child processes, the way a user runs them, each with its
 * output in a log file. The cluster's state goes to one folder, so tests leave the user's own
 * local cluster (if any) alone.
 */
final class Scripts {
  static final Path ROOT = Path.of(System.getProperty("user.dir")).toAbsolutePath();
  private static final Pattern PROGRESS = Pattern.compile("progress: ([\\d,]+) of ([\\d,]+) rows");

  private final Path clusterDir;
  private final Path logs;

  Scripts(Path clusterDir, Path logs) throws IOException {
    this.clusterDir = clusterDir;
    this.logs = Files.createDirectories(logs);
  }

  /** A running script: its process (the JVM itself for scripts that exec Java) and its log. */
  record Running(Process process, Path log) {
    String output() throws IOException {
      return Files.readString(log, StandardCharsets.UTF_8);
    }

    /** Rows the job's progress line last reported done, or -1 before the first line. */
    long rowsDone() throws IOException {
      Matcher m = PROGRESS.matcher(output());
      long done = -1;
      while (m.find()) {
        done = Long.parseLong(m.group(1).replace(",", ""));
      }
      return done;
    }

    int await(Duration timeout) throws InterruptedException, IOException {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("timed out after " + timeout + ":\n" + output());
      }
      return process.exitValue();
    }
  }

  Running start(String logName, String script, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(ROOT.resolve("jobs").resolve(script).toString());
    command.addAll(List.of(args));
    Path log = logs.resolve(logName + ".log");
    ProcessBuilder builder = new ProcessBuilder(command).directory(ROOT.toFile())
        .redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().put("ENCODER_CLUSTER_DIR", clusterDir.toString());
    builder.environment().put("ENCODER_HEAP", "1g");
    return new Running(builder.start(), log);
  }

  /** Runs a script to its end and returns its output; fails the test on a non-zero exit. */
  String run(Duration timeout, String logName, String script, String... args)
      throws IOException, InterruptedException {
    Running r = start(logName, script, args);
    int code = r.await(timeout);
    assertEquals(0, code, script + " " + String.join(" ", args) + " failed:\n" + r.output());
    return r.output();
  }

  /** Process ids of the executor JVMs this test's cluster started. */
  List<Long> executorPids() throws IOException {
    return processes().entrySet().stream()
        .filter(e -> e.getValue().contains("CoarseGrainedExecutorBackend"))
        .map(Map.Entry::getKey).toList();
  }

  /** Every process whose command line names this test's cluster folder, abbreviated. */
  List<String> clusterProcesses() throws IOException {
    return processes().entrySet().stream()
        .map(e -> e.getKey() + " " + abbreviate(e.getValue())).toList();
  }

  /**
   * Command lines (from /proc: ProcessHandle's are cut short for long ones) of the processes
   * that name the cluster folder, by process id.
   */
  private Map<Long, String> processes() throws IOException {
    Map<Long, String> found = new TreeMap<>();
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path proc : procs) {
        String command;
        try {
          command = new String(Files.readAllBytes(proc.resolve("cmdline")),
              StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException gone) {
          continue;   // the process ended while we looked
        }
        if (command.contains(clusterDir + "/")) {
          found.put(Long.parseLong(proc.getFileName().toString()), command);
        }
      }
    }
    return found;
  }

  private static String abbreviate(String command) {
    return command.length() <= 120 ? command : command.substring(0, 120) + "...";
  }
}
