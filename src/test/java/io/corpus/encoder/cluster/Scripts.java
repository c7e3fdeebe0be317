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
 * local cluster (if any) alone. Every JVM they start (daemons, drivers, the executors the worker
 * launches) keeps its temporary files in a folder of the test's ({@code JDK_JAVA_OPTIONS}, which
 * the {@code java} launcher reads): the JVMs the tests kill cannot delete theirs (Spark's
 * folders, the native libraries its jars unpack), and they are not left in the system's.
 */
final class Scripts {
  static final Path ROOT = Path.of(System.getProperty("user.dir")).toAbsolutePath();
  private static final Pattern PROGRESS = Pattern.compile("progress: ([\\d,]+) of ([\\d,]+) rows");

  private final Path clusterDir;
  private final Path logs;
  private final Path temporary;

  Scripts(Path clusterDir, Path logs, Path temporary) throws IOException {
    this.clusterDir = clusterDir;
    this.logs = Files.createDirectories(logs);
    this.temporary = Files.createDirectories(temporary);
  }

  /** The folder the scripts' JVMs keep their temporary files in. */
  Path temporary() {
    return temporary;
  }

  /**
   * A running script: its process (the JVM itself for scripts that exec Java) and its log, which
   * a thread copies line by line from the process, waking whoever waits for a line. Its progress,
   * done and error lines are echoed to the test's console, so a run of minutes is not silent.
   */
  static final class Running {
    private static final Pattern ECHOED = Pattern.compile("^(progress|done|error|check): ");
    private final Process process;
    private final Path log;
    private final String name;
    private final long startNanos = System.nanoTime();
    private final List<String> lines = new ArrayList<>();
    private boolean ended;

    private Running(Process process, Path log, String name) {
      this.process = process;
      this.log = log;
      this.name = name;
      Thread follower = new Thread(this::follow, "follow-" + log.getFileName());
      follower.setDaemon(true);
      follower.start();
    }

    private void follow() {
      try (var in = new java.io.BufferedReader(new java.io.InputStreamReader(
              process.getInputStream(), StandardCharsets.UTF_8));
          var out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
        for (String line; (line = in.readLine()) != null; ) {
          out.write(line);
          out.newLine();
          out.flush();
          if (ECHOED.matcher(line).find()) {
            System.out.printf("it %s (%.0f s): %s%n", name, seconds(), line);
          }
          synchronized (this) {
            lines.add(line);
            notifyAll();
          }
        }
      } catch (IOException e) {
        // the process is gone; what was read is in the log
      } finally {
        synchronized (this) {
          ended = true;
          notifyAll();
        }
      }
    }

    Process process() {
      return process;
    }

    private double seconds() {
      return (System.nanoTime() - startNanos) / 1e9;
    }

    synchronized String output() {
      return String.join("\n", lines);
    }

    /**
     * Waits for the next progress line and returns its rows done, or -1 if the output ended
     * first; woken by each line the process prints, not by a timer.
     */
    synchronized long awaitProgress(Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      for (int seen = 0; ; ) {
        for (; seen < lines.size(); seen++) {
          Matcher m = PROGRESS.matcher(lines.get(seen));
          if (m.find()) {
            return Long.parseLong(m.group(1).replace(",", ""));
          }
        }
        long left = deadline - System.nanoTime();
        if (ended || left <= 0) {
          return -1;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }

    int await(Duration timeout) throws InterruptedException {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("timed out after " + timeout + ":\n" + output());
      }
      synchronized (this) {
        while (!ended) {
          wait();   // the last lines, still being copied
        }
      }
      System.out.printf("it %s: exit %d after %.0f s (log %s)%n", name, process.exitValue(),
          seconds(), log);
      return process.exitValue();
    }
  }

  Running start(String logName, String script, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(ROOT.resolve("jobs").resolve(script).toString());
    command.addAll(List.of(args));
    Path log = logs.resolve(logName + ".log");
    ProcessBuilder builder = new ProcessBuilder(command).directory(ROOT.toFile())
        .redirectErrorStream(true);
    builder.environment().put("ENCODER_CLUSTER_DIR", clusterDir.toString());
    builder.environment().put("ENCODER_HEAP", "1g");
    builder.environment().put("JDK_JAVA_OPTIONS", "-Djava.io.tmpdir=" + temporary);
    System.out.printf("it %s: jobs/%s %s%n", logName, script, String.join(" ", args));
    return new Running(builder.start(), log, logName);
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

  /**
   * The CPU time, in clock ticks, of each of the process's task threads: those of the executor's
   * task pool ("Executor task launch worker ...", which Linux cuts to 15 characters), made when a
   * task is launched and kept, idle, after it ends. A task runs while its thread's time grows.
   */
  static Map<Long, Long> taskThreadTicks(long pid) throws IOException {
    Map<Long, Long> ticks = new TreeMap<>();
    try (DirectoryStream<Path> threads = Files.newDirectoryStream(Path.of("/proc", String
        .valueOf(pid), "task"))) {
      for (Path thread : threads) {
        try {
          if (Files.readString(thread.resolve("comm")).startsWith("Executor task")) {
            // after the name in parentheses: state, then 10 fields, then utime and stime
            String stat = Files.readString(thread.resolve("stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            ticks.put(Long.parseLong(thread.getFileName().toString()),
                Long.parseLong(fields[11]) + Long.parseLong(fields[12]));
          }
        } catch (IOException gone) {
          // the thread ended while we looked
        }
      }
    }
    return ticks;
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
