package io.corpus.encoder.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * A job's output folder, written to a staging folder beside it and renamed into place only when
 * everything in it is complete. A failed or killed job leaves the previous output (or none) and,
 * at worst, a staging folder whose name says it is one, never a partial table at the real path.
 */
public final class OutputFolder {
  private final FileSystem fs;
  private final Path target;
  private final Path staging;

  public OutputFolder(String target, Configuration hadoopConf) {
    this.target = new Path(target);
    try {
      this.fs = this.target.getFileSystem(hadoopConf);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot open the file system of " + target, e);
    }
    this.staging = new Path(this.target.getParent(),
        "." + this.target.getName() + ".staging-" + UUID.randomUUID());
  }

  public boolean targetExists() {
    try {
      return fs.exists(target);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Deletes staging folders that earlier runs to the same output left behind when they were
   * killed (a driver that dies cannot clean up), and returns their paths. Jobs writing to the same
   * output path at the same time are not supported.
   */
  public List<Path> removeAbandonedStaging() {
    List<Path> removed = new ArrayList<>();
    String prefix = "." + target.getName() + ".staging-";
    try {
      Path parent = target.getParent();
      if (!fs.exists(parent)) {
        return removed;
      }
      for (FileStatus status : fs.listStatus(parent)) {
        if (status.getPath().getName().startsWith(prefix)) {
          fs.delete(status.getPath(), true);
          removed.add(status.getPath());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + target.getParent(), e);
    }
    return removed;
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

  /** Moves the staging folder to the target, replacing an older output if {@code replace}. */
  public void commit(boolean replace) {
    try {
      if (fs.exists(target)) {
        if (!replace) {
          throw new IllegalStateException("Output path " + target + " appeared while the job ran; "
              + "the new output stays at " + staging);
        }
        Path old = new Path(staging.getParent(), staging.getName() + "-replaced");
        if (!fs.rename(target, old)) {
          throw new IOException("Cannot move the old output " + target + " aside");
        }
        rename(staging, target);
        fs.delete(old, true);
      } else {
        rename(staging, target);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Deletes the staging folder after a failure. */
  public void abort() {
    try {
      fs.delete(staging, true);
    } catch (IOException e) {
      // Best effort: the staging name says what it is.
    }
  }

  private void rename(Path from, Path to) throws IOException {
    if (!fs.rename(from, to)) {
      throw new IOException("Cannot rename " + from + " to " + to);
    }
  }
}
