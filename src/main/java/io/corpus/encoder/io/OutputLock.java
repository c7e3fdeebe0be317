package io.corpus.encoder.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.time.Instant;
import java.util.Optional;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One writer per output path: a lock file {@code .NAME.lock} beside the output, created
 * atomically (O_EXCL on a local disk, a non-overwriting create elsewhere), naming the host, the
 * process, its start and the run. A second job finds it and refuses, naming the first. A lock left
 * by a process that is gone (same host: no such process, or the id now belongs to a process
 * started later) is taken over with a warning; a lock from another host is never guessed about.
 */
public final class OutputLock implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OutputLock.class);

  /**
   * Who holds a lock.
   *
   * @param host the holder's host name
   * @param pid its process id
   * @param processStart when that process started (ISO-8601; "" if unknown)
   * @param run the run's id (its staging folder's suffix)
   */
  public record Holder(String host, long pid, String processStart, String run) {
    static Holder thisProcess(String run) {
      ProcessHandle self = ProcessHandle.current();
      return new Holder(hostName(), self.pid(), startOf(self), run);
    }

    String line() {
      return "host=" + host + " pid=" + pid + " process-start=" + processStart + " run=" + run;
    }

    static Optional<Holder> parse(String line) {
      String host = null;
      String start = "";
      String run = "";
      long pid = -1;
      for (String field : line.trim().split(" ")) {
        int eq = field.indexOf('=');
        if (eq < 0) {
          continue;
        }
        String value = field.substring(eq + 1);
        switch (field.substring(0, eq)) {
          case "host" -> host = value;
          case "pid" -> pid = parseLong(value);
          case "process-start" -> start = value;
          case "run" -> run = value;
          default -> { }
        }
      }
      return host == null || pid < 0 ? Optional.empty()
          : Optional.of(new Holder(host, pid, start, run));
    }

    /** Whether this holder is certainly gone: same host, and no live process of that start. */
    boolean deadOnThisHost() {
      if (!host.equals(hostName())) {
        return false;
      }
      Optional<ProcessHandle> process = ProcessHandle.of(pid);
      if (process.isEmpty() || !process.get().isAlive()) {
        return true;
      }
      String start = startOf(process.get());
      return !processStart.isEmpty() && !start.isEmpty() && !start.equals(processStart);
    }

    @Override
    public String toString() {
      return "run " + run + " of process " + pid + " on " + host
          + (processStart.isEmpty() ? "" : " (started " + processStart + ")");
    }
  }

  private final FileSystem fs;
  private final Path path;
  private final Holder holder;
  private boolean held = true;

  private OutputLock(FileSystem fs, Path path, Holder holder) {
    this.fs = fs;
    this.path = path;
    this.holder = holder;
  }

  /** The lock file of {@code target}: {@code .NAME.lock} in the same folder. */
  public static Path pathFor(Path target) {
    return LocalPaths.child(target.getParent(), "." + target.getName() + ".lock");
  }

  /**
   * Takes the lock of {@code target} for {@code run}, or refuses with an
   * {@link IllegalStateException} naming the holder.
   */
  public static OutputLock acquire(FileSystem fs, Path target, String run) {
    Path lock = pathFor(target);
    Holder me = Holder.thisProcess(run);
    try {
      fs.mkdirs(lock.getParent());
      if (tryCreate(fs, lock, me)) {
        return new OutputLock(fs, lock, me);
      }
      Optional<Holder> other = read(fs, lock);
      for (int retry = 0; other.isEmpty() && retry < 20 && fs.exists(lock); retry++) {
        Thread.sleep(50);   // a lock created on a remote file system, its holder not yet written
        other = read(fs, lock);
      }
      if (other.isPresent() && other.get().deadOnThisHost()) {
        Path stale = LocalPaths.child(lock.getParent(), lock.getName() + ".stale-" + run);
        // Renaming is atomic: of two jobs taking over the same stale lock, one moves it.
        if (fs.rename(lock, stale)) {
          if (read(fs, stale).equals(other)) {
            fs.delete(stale, false);
            LOG.warn("Took over the output path's lock from {}, which is no longer running",
                other.get());
            if (tryCreate(fs, lock, me)) {
              return new OutputLock(fs, lock, me);
            }
          } else {
            fs.rename(stale, lock);   // another job's fresh lock: put it back
          }
        }
        other = read(fs, lock);
      }
      throw held(target, lock, other);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot take the lock " + lock, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while taking the lock " + lock, e);
    }
  }

  /**
   * Refuses, without taking it, a lock of {@code target} that a running job holds (or one whose
   * holder cannot be read); a lock of a process gone from this host is left for
   * {@link #acquire} to take over.
   */
  public static void checkFree(FileSystem fs, Path target) throws IOException {
    Path lock = pathFor(target);
    if (!fs.exists(lock)) {
      return;
    }
    Optional<Holder> other = read(fs, lock);
    if (other.isEmpty() && !fs.exists(lock)) {
      return;   // released meanwhile
    }
    if (other.isEmpty() || !other.get().deadOnThisHost()) {
      throw held(target, lock, other);
    }
  }

  private static IllegalStateException held(Path target, Path lock, Optional<Holder> other) {
    return new IllegalStateException("Output path " + shown(target) + " is being written by "
        + other.map(Holder::toString).orElse("another job (its lock file is unreadable)")
        + " (lock file " + shown(lock) + "); if that job is gone and ran on another host, "
        + "delete the lock file");
  }

  public Holder holder() {
    return holder;
  }

  /** Removes the lock, if it is still this run's. */
  @Override
  public void close() {
    if (!held) {
      return;
    }
    held = false;
    try {
      if (read(fs, path).map(h -> h.equals(holder)).orElse(false)) {
        fs.delete(path, false);
      }
    } catch (IOException e) {
      LOG.warn("Cannot remove the output path's lock of {}: {}", holder,
          e.getClass().getSimpleName());
    }
  }

  /** Creates the lock file atomically; false if it exists. */
  private static boolean tryCreate(FileSystem fs, Path lock, Holder me) throws IOException {
    byte[] content = (me.line() + "\n").getBytes(StandardCharsets.UTF_8);
    java.nio.file.Path local = LocalPaths.of(fs, lock);
    if (local != null) {
      // Written whole under a name of its own, then linked into place: creating a link fails
      // if the lock exists, and a reader never sees a lock file without its holder.
      java.nio.file.Path written = Files.createTempFile(local.getParent(),
          local.getFileName().toString(), ".new");
      try {
        Files.write(written, content);
        Files.createLink(local, written);
        return true;
      } catch (FileAlreadyExistsException e) {
        return false;
      } finally {
        Files.deleteIfExists(written);
      }
    }
    try (FSDataOutputStream out = fs.create(lock, false)) {
      out.write(content);
      return true;
    } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
      return false;
    }
  }

  private static Optional<Holder> read(FileSystem fs, Path lock) throws IOException {
    java.nio.file.Path local = LocalPaths.of(fs, lock);
    try {
      byte[] bytes;
      if (local != null) {
        bytes = Files.readAllBytes(local);
      } else {
        try (var in = fs.open(lock)) {
          bytes = in.readNBytes(4096);
        }
      }
      return Holder.parse(new String(bytes, StandardCharsets.UTF_8));
    } catch (NoSuchFileException | java.io.FileNotFoundException e) {
      return Optional.empty();
    }
  }

  /** A path for messages: a local one as a plain path, others with their scheme. */
  static String shown(Path path) {
    return "file".equals(path.toUri().getScheme()) ? path.toUri().getPath() : path.toString();
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "unknown-host";
    }
  }

  private static String startOf(ProcessHandle process) {
    return process.info().startInstant().map(Instant::toString).orElse("");
  }

  private static long parseLong(String value) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
