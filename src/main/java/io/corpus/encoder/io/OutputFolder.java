package io.corpus.encoder.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's output folder: written to a staging folder beside it and swapped into place only when
 * complete, by the one job that holds its {@link OutputLock}.
 *
 * <ul>
 *   <li>What may be replaced: nothing in {@code error-if-exists} mode; in {@code overwrite} mode
 *       an empty folder or an earlier output of this job ({@link EarlierOutput}: its summary,
 *       its tables and nothing else); in {@code replace-any-folder} mode any folder.
 *   <li>The commit ({@link CommitStep}): mark the staging folder, swap it with the old output,
 *       drop the old output, unlock. On a local disk the swap is one {@code renameat2} exchange,
 *       so the output path holds the old output or the new one at every instant; elsewhere it is
 *       two renames, and a job killed between them leaves the old output at
 *       {@code .NAME.previous-RUN}, which the next job to that path puts back before it starts.
 *   <li>Clean-up, under the lock: staging folders of runs that did not finish and previous
 *       outputs of finished commits, each recognized by its own name; nothing else is touched.
 *       A run that resumes instead takes over the newest staging folder that holds a
 *       {@value #RESUME_PLAN} (the pieces a killed run kept, which the job then checks).
 * </ul>
 *
 * <p>Driver only.
 */
public final class OutputFolder implements AutoCloseable {
  /** The file at the top of every committed output that says this job wrote it. */
  public static final String MARKER = ".corpus-encoder-output";
  /** The file in a staging folder that says which pieces of the output a run is keeping. */
  public static final String RESUME_PLAN = "resume-plan.json";
  private static final Logger LOG = LoggerFactory.getLogger(OutputFolder.class);

  /** What may be at the output path already. */
  public enum Replace { NOTHING, EARLIER_OUTPUT, ANY_FOLDER }

  /**
   * The steps of a commit, in order; a fault-injection test stops the job before each.
   * {@code SWAP_HALFWAY} comes after the old output has left the output path: with the local
   * exchange the new output is already there; with two renames the path is empty until the
   * second.
   */
  public enum CommitStep { MARK, SWAP, SWAP_HALFWAY, DROP_PREVIOUS, UNLOCK }

  private final FileSystem fs;
  private final Path target;
  private final String shown;   // the path as configured, for messages
  private final String run;
  private final Path staging;
  private final Path previous;
  private final Replace replace;
  private final OutputLock lock;
  private Consumer<CommitStep> beforeStep = step -> { };
  private boolean exchangeAllowed = true;
  private String resumedFrom;

  private OutputFolder(FileSystem fs, Path target, String shown, Replace replace,
      OutputLock lock, String run) {
    this.fs = fs;
    this.target = target;
    this.shown = shown;
    this.replace = replace;
    this.lock = lock;
    this.run = run;
    this.staging = sibling("staging-" + run);
    this.previous = sibling("previous-" + run);
  }

  /**
   * Takes the output path's lock, finishes or clears what killed runs left there, and checks
   * that what is at the path may be replaced; refuses (and unlocks) otherwise.
   */
  public static OutputFolder open(String target, Configuration hadoopConf, Replace replace) {
    return open(target, hadoopConf, replace, false);
  }

  /**
   * As {@link #open(String, Configuration, Replace)}; with {@code resume}, the newest staging
   * folder a killed run left with a {@value #RESUME_PLAN} becomes this run's staging folder
   * (see {@link #resumedFrom()}) instead of being removed.
   */
  public static OutputFolder open(String target, Configuration hadoopConf, Replace replace,
      boolean resume) {
    Path path = new Path(target);
    FileSystem fs;
    try {
      fs = path.getFileSystem(hadoopConf);
      path = fs.makeQualified(path);
      if (fs instanceof ChecksumFileSystem checksums) {
        // The folder's own files (lock, marker) need no .crc beside them, and Hadoop's local
        // checksum files cannot be named for a name with a colon (a:b gives ..a:b.lock.crc).
        fs = checksums.getRawFileSystem();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open the file system of " + target, e);
    }
    if (path.getParent() == null) {
      throw new IllegalArgumentException("output.path " + target + " is the root of its file "
          + "system; name a folder inside it");
    }
    String run = UUID.randomUUID().toString();
    OutputLock lock = OutputLock.acquire(fs, path, run);
    OutputFolder folder = new OutputFolder(fs, path, target, replace, lock, run);
    try {
      folder.recover(resume);
      folder.checkReplaceable();
      return folder;
    } catch (RuntimeException e) {
      lock.close();
      throw e;
    }
  }

  /**
   * Before Spark starts, without taking the lock: refuses what {@link #open} would refuse at a
   * local output path (another job's lock, what is there and may not be replaced, counting an
   * old output that a killed commit left aside, which {@code open} puts back). Other file systems
   * are not opened here: {@code open} checks them when Spark's settings are in place.
   */
  public static void checkBeforeStart(String target, Replace replace) {
    checkBeforeStart(target, replace, LocalPaths.beforeSpark());
  }

  /** As {@link #checkBeforeStart(String, Replace)}, with Hadoop's settings given. */
  static void checkBeforeStart(String target, Replace replace, Configuration conf) {
    Path path = new Path(target);
    if (LocalPaths.isRemote(path, conf)) {
      return;
    }
    try {
      FileSystem fs = FileSystem.getLocal(conf);
      path = fs.makeQualified(path);
      if (path.getParent() == null) {
        return;   // OutputPaths refuses the root
      }
      OutputLock.checkFree(fs, path);
      Path existing = path;
      if (!fs.exists(path) && fs.exists(path.getParent())) {
        for (FileStatus status : fs.listStatus(path.getParent())) {
          if (status.getPath().getName().startsWith(siblingPrefix(path, "previous-"))) {
            existing = status.getPath();
          }
        }
      }
      checkReplaceable(fs, existing, target, replace);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot look at output.path " + target, e);
    }
  }

  /** Path of {@code name} inside the staging folder, as a string for Spark's writers. */
  public String staged(String name) {
    return new Path(staging, name).toString();
  }

  /** The staging folder itself, as a string. */
  public String staging() {
    return staging.toString();
  }

  public Path target() {
    return target;
  }

  /** The run id of the killed run whose staging folder this run took over, or null. */
  public String resumedFrom() {
    return resumedFrom;
  }

  /** For fault-injection tests: runs before each commit step (it may throw, or halt the JVM). */
  void beforeEachStep(Consumer<CommitStep> hook) {
    this.beforeStep = hook;
  }

  /** For tests: swaps by two renames, as on file systems other than the local disk. */
  void withoutExchange() {
    this.exchangeAllowed = false;
  }

  /** Swaps the complete staging folder into place, drops the old output, unlocks. */
  public void commit() {
    try {
      step(CommitStep.MARK);
      writeMarker();
      step(CommitStep.SWAP);
      boolean replacing = fs.exists(target);
      if (replacing) {
        checkReplaceable();
        swap();
      } else {
        step(CommitStep.SWAP_HALFWAY);
        moveIntoPlace();
      }
      step(CommitStep.DROP_PREVIOUS);
      if (replacing && fs.exists(previous)) {
        fs.delete(previous, true);
      }
      step(CommitStep.UNLOCK);
      lock.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * After a failure: finishes a commit that had swapped the outputs, or puts the old output back
   * if it had only moved it aside; deletes the staging folder; unlocks. Best effort: what it
   * cannot do, the next run to this path does.
   */
  public void abort() {
    try {
      if (fs.exists(previous)) {
        if (fs.exists(target)) {
          fs.delete(previous, true);   // the swap was done: the old output is the one to drop
        } else {
          rename(previous, target);    // halfway through two renames: the old output goes back
        }
      }
      fs.delete(staging, true);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not clean up after the failed run {}: {}; the next run to its output path "
          + "will", run, e.getClass().getSimpleName());
    }
    lock.close();
  }

  /** Unlocks (after a commit or an abort this does nothing more). */
  @Override
  public void close() {
    lock.close();
  }

  private void step(CommitStep step) {
    beforeStep.accept(step);
  }

  private void writeMarker() throws IOException {
    byte[] text = ("corpus-encoder output, run " + run + ", committed " + Instant.now() + "\n")
        .getBytes(StandardCharsets.UTF_8);
    java.nio.file.Path local = LocalPaths.of(fs, new Path(staging, MARKER));
    if (local != null) {
      Files.write(local, text);   // no checksum file beside it, as Hadoop's local one writes
      return;
    }
    try (FSDataOutputStream out = fs.create(new Path(staging, MARKER), true)) {
      out.write(text);
    }
  }

  /** The old output out, the new one in: in one step on a local disk, else in two. */
  private void swap() throws IOException {
    java.nio.file.Path localStaging = LocalPaths.of(fs, staging);
    if (exchangeAllowed && localStaging != null
        && LocalPaths.exchange(localStaging, LocalPaths.of(fs, target))) {
      step(CommitStep.SWAP_HALFWAY);
      rename(staging, previous);   // the staging name now holds the old output
      return;
    }
    rename(target, previous);
    step(CommitStep.SWAP_HALFWAY);
    rename(staging, target);
  }

  private void moveIntoPlace() throws IOException {
    java.nio.file.Path local = LocalPaths.of(fs, staging);
    if (local != null) {
      // rename(2): fails rather than move into a folder that appeared meanwhile (unless empty).
      Files.move(local, LocalPaths.of(fs, target), StandardCopyOption.ATOMIC_MOVE);
    } else {
      rename(staging, target);
    }
  }

  /**
   * Under the lock: puts back an old output a killed commit left aside, clears dead runs (or,
   * resuming, takes over the newest one that kept pieces).
   */
  private void recover(boolean resume) {
    try {
      Path parent = target.getParent();
      if (!fs.exists(parent)) {
        return;
      }
      List<Path> previousOutputs = new ArrayList<>();
      List<Path> stagings = new ArrayList<>();
      for (FileStatus status : fs.listStatus(parent)) {
        String name = status.getPath().getName();
        if (name.startsWith(siblingPrefix("previous-"))) {
          previousOutputs.add(status.getPath());
        } else if (name.startsWith(siblingPrefix("staging-"))) {
          stagings.add(status.getPath());
        }
      }
      for (Path old : previousOutputs) {
        if (!fs.exists(target)) {
          rename(old, target);
          LOG.warn("Put back the earlier output of run {}: the run that was replacing it stopped "
              + "halfway", runOf(old));
        } else {
          fs.delete(old, true);
          LOG.info("Removed the output run {} replaced", runOf(old));
        }
      }
      Path kept = resume ? newestWithPlan(stagings) : null;
      if (kept != null) {
        rename(kept, staging);
        resumedFrom = runOf(kept);
        LOG.info("Took over the staging folder of run {}, which did not finish, to "
            + "resume from the pieces it kept", resumedFrom);
      }
      for (Path dead : stagings) {
        if (dead.equals(kept)) {
          continue;
        }
        fs.delete(dead, true);
        LOG.warn("Removed the staging folder of run {}, which did not finish", runOf(dead));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + target.getParent(), e);
    }
  }

  /** The staging folder whose resume plan was written last, or null if none has one. */
  private Path newestWithPlan(List<Path> stagings) throws IOException {
    Path newest = null;
    long newestTime = Long.MIN_VALUE;
    for (Path folder : stagings) {
      Path plan = new Path(folder, RESUME_PLAN);
      if (fs.exists(plan) && fs.getFileStatus(plan).getModificationTime() > newestTime) {
        newest = folder;
        newestTime = fs.getFileStatus(plan).getModificationTime();
      }
    }
    return newest;
  }

  /** Refuses when what is at the output path is not this folder's to replace. */
  private void checkReplaceable() {
    try {
      checkReplaceable(fs, target, shown, replace);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot look at " + target, e);
    }
  }

  /** Refuses when {@code target} (configured as {@code shown}) may not be replaced. */
  private static void checkReplaceable(FileSystem fs, Path target, String shown, Replace replace)
      throws IOException {
    if (!fs.exists(target)) {
      return;
    }
    if (replace == Replace.NOTHING) {
      throw new IllegalArgumentException("Output path " + shown + " exists; set output.mode "
          + "= overwrite to replace it");
    }
    FileStatus status = fs.getFileStatus(target);
    if (!status.isDirectory()) {
      throw new IllegalArgumentException("Output path " + shown + " is a file, not a folder; "
          + "it is left as it is");
    }
    if (replace == Replace.ANY_FOLDER) {
      return;
    }
    if (fs.listStatus(target).length == 0) {
      return;
    }
    String notOurs = EarlierOutput.whyNotOurs(fs, target);
    if (notOurs != null) {
      throw new IllegalArgumentException("Output path " + shown + " is a folder this job did "
          + "not write (" + notOurs + "): overwrite and update replace only an empty folder or "
          + "an earlier output. Choose another output.path, or set output.mode = "
          + "replace-any-folder to replace this folder and all it holds");
    }
  }

  /**
   * The run a sibling folder ({@code .NAME.staging-RUN}, {@code .NAME.previous-RUN}) belongs to:
   * what logs and summaries name, since the output's name may be a value to keep out of them.
   */
  private String runOf(Path sibling) {
    String name = sibling.getName();
    for (String kind : new String[] {"staging-", "previous-"}) {
      if (name.startsWith(siblingPrefix(kind))) {
        return name.substring(siblingPrefix(kind).length());
      }
    }
    return name;
  }

  /** How the names of {@code target}'s siblings of a kind begin: {@code .NAME.staging-}, … */
  private static String siblingPrefix(Path target, String kind) {
    return "." + target.getName() + "." + kind;
  }

  private String siblingPrefix(String kind) {
    return siblingPrefix(target, kind);
  }

  private Path sibling(String kind) {
    return LocalPaths.child(target.getParent(), siblingPrefix(kind));
  }

  private void rename(Path from, Path to) throws IOException {
    if (fs.exists(to)) {   // Hadoop would move `from` into `to`
      throw new IOException("Cannot rename " + from + " to " + to + ": it exists");
    }
    if (!fs.rename(from, to)) {
      throw new IOException("Cannot rename " + from + " to " + to);
    }
  }
}
