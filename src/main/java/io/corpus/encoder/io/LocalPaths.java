package io.corpus.encoder.io;

import com.sun.jna.Function;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The local disk under Hadoop's file-system API: which Hadoop paths are plain local files, and the
 * one rename Linux offers that Java lacks, {@code renameat2(RENAME_EXCHANGE)}, which swaps two
 * folders in one step, so that an output path always holds the old output or the new one.
 */
public final class LocalPaths {
  private static final int AT_FDCWD = -100;
  private static final int RENAME_EXCHANGE = 2;

  private LocalPaths() {}

  /**
   * {@code parent}'s entry {@code name}, whatever characters it holds: Hadoop reads a name with
   * a colon before any slash ({@code .a:b.lock}) as a URI scheme, so it is given as
   * {@code ./name}.
   */
  static Path child(Path parent, String name) {
    return new Path(parent, "./" + name);
  }

  /**
   * The local path of {@code path} when {@code fs} is the local file system, else null. Taken
   * from the URI's decoded path: Hadoop keeps characters outside ASCII raw in its URIs, which
   * {@code Path.of(URI)} refuses ("Bad escape").
   */
  static java.nio.file.Path of(FileSystem fs, Path path) {
    if (!"file".equals(fs.getUri().getScheme())) {
      return null;
    }
    return java.nio.file.Path.of(fs.makeQualified(path).toUri().getPath());
  }

  /**
   * Whether {@code path} is on a file system other than the local disk: its scheme, or for a
   * path without one the default file system of {@code conf} (on a cluster, {@code /data/docs}
   * is on HDFS).
   */
  public static boolean isRemote(Path path, Configuration conf) {
    String scheme = path.toUri().getScheme();
    if (scheme == null) {
      scheme = FileSystem.getDefaultUri(conf).getScheme();
    }
    return scheme != null && !scheme.equals("file");
  }

  /**
   * Hadoop's settings as a job will have them before Spark starts: {@code core-site.xml} from
   * the classpath (spark-submit puts HADOOP_CONF_DIR there), then the {@code spark.hadoop.*}
   * properties spark-submit passes as system properties; local files through
   * {@link NioLocalFileSystem} unless they name another file system, as the job's session does.
   */
  public static Configuration beforeSpark() {
    Configuration conf = new Configuration();
    for (String key : System.getProperties().stringPropertyNames()) {
      if (key.startsWith("spark.hadoop.")) {
        conf.set(key.substring("spark.hadoop.".length()), System.getProperty(key));
      }
    }
    return NioLocalFileSystem.install(conf);
  }

  /**
   * Swaps the entries at {@code a} and {@code b} atomically; false where the system cannot (not
   * Linux, an old kernel, a file system without the flag), and nothing was changed.
   */
  static boolean exchange(java.nio.file.Path a, java.nio.file.Path b) {
    Function renameat2 = Renameat2.FUNCTION;
    if (renameat2 == null) {
      return false;
    }
    int result = renameat2.invokeInt(new Object[] {AT_FDCWD, a.toString(), AT_FDCWD,
        b.toString(), RENAME_EXCHANGE});
    if (result == 0) {
      return true;
    }
    int errno = Native.getLastError();
    if (errno == 22 || errno == 38 || errno == 95) {   // EINVAL, ENOSYS, EOPNOTSUPP
      return false;
    }
    throw new java.io.UncheckedIOException(new java.io.IOException("Cannot swap " + a + " and "
        + b + ": renameat2 failed with errno " + errno));
  }

  /** glibc's renameat2 (2.28 and later), looked up once; null where there is none. */
  private static final class Renameat2 {
    static final Function FUNCTION = find();

    private static Function find() {
      if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
        return null;
      }
      try {
        return NativeLibrary.getInstance("c").getFunction("renameat2");
      } catch (UnsatisfiedLinkError | RuntimeException e) {
        return null;
      }
    }
  }
}
