package io.corpus.encoder.io;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.security.Principal;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.io.nativeio.NativeIO;

/**
 * Hadoop's local file system (checksums included), its permissions set and read through Java's
 * file attributes. Without Hadoop's native library ({@code libhadoop.so}, which Spark's Maven jars
 * do not carry) Hadoop runs a {@code chmod} process for every file and folder it creates and an
 * {@code ls -ld} for every listed file whose owner or permissions are asked for: 86 processes
 * spawned from the job's JVM in the README's sample job, 7 with this (src/site/markdown/speed.md).
 * Where the native library is loaded, for a permission Java cannot set (sticky, set-id bits)
 * and where Java has no view of Unix modes, Hadoop's own way is taken.
 */
public class NioLocalFileSystem extends LocalFileSystem {
  /** The Hadoop setting that names the class of {@code file:} paths' file system. */
  public static final String KEY = "fs.file.impl";

  /** Java's view of a file's whole mode (sticky and set-id bits too), owner and group. */
  private static final boolean UNIX =
      FileSystems.getDefault().supportedFileAttributeViews().contains("unix");
  private static final String ATTRIBUTES =
      "unix:mode,owner,group,isDirectory,lastModifiedTime,lastAccessTime";

  public NioLocalFileSystem() {
    super(new Raw());
  }

  /** {@code conf}, with this file system for {@code file:} paths unless it names another. */
  public static Configuration install(Configuration conf) {
    if (conf.get(KEY) == null) {
      conf.set(KEY, NioLocalFileSystem.class.getName());
    }
    return conf;
  }

  /** Whether Java sets and reads the permissions here (else Hadoop's own way runs). */
  static boolean usesJava() {
    return UNIX && !NativeIO.isAvailable();
  }

  /** The raw (checksum-less) file system underneath. */
  static final class Raw extends RawLocalFileSystem {
    @Override
    public void setPermission(Path p, FsPermission permission) throws IOException {
      Set<PosixFilePermission> bits = posixBits(permission);
      if (!usesJava() || bits == null) {
        super.setPermission(p, permission);
        return;
      }
      try {
        Files.setPosixFilePermissions(pathToFile(p).toPath(), bits);
      } catch (NoSuchFileException e) {
        throw new FileNotFoundException("File " + p + " does not exist");
      }
    }

    /**
     * As Hadoop's: the file a path names (links followed), its length, times, permission, owner
     * and group, the block size and a replication of 1, the path qualified.
     */
    @Override
    public FileStatus getFileStatus(Path f) throws IOException {
      if (!usesJava()) {
        return super.getFileStatus(f);
      }
      File file = pathToFile(f);
      Map<String, Object> attributes;
      try {
        attributes = Files.readAttributes(file.toPath(), ATTRIBUTES);
      } catch (NoSuchFileException e) {
        throw new FileNotFoundException("File " + f + " does not exist");
      }
      return new FileStatus(file.length(), (Boolean) attributes.get("isDirectory"), 1,
          getDefaultBlockSize(f), ((FileTime) attributes.get("lastModifiedTime")).toMillis(),
          ((FileTime) attributes.get("lastAccessTime")).toMillis(),
          new FsPermission((short) ((Integer) attributes.get("mode") & 07777)),
          ((Principal) attributes.get("owner")).getName(),
          ((Principal) attributes.get("group")).getName(),
          new Path(file.getPath()).makeQualified(getUri(), getWorkingDirectory()));
    }
  }

  /** The POSIX permissions of {@code permission}; null when it holds a sticky or set-id bit. */
  static Set<PosixFilePermission> posixBits(FsPermission permission) {
    int mode = permission.toShort();
    if ((mode & ~0777) != 0) {
      return null;
    }
    Set<PosixFilePermission> bits = EnumSet.noneOf(PosixFilePermission.class);
    PosixFilePermission[] order = PosixFilePermission.values();   // OWNER_READ ... OTHERS_EXECUTE
    for (int i = 0; i < order.length; i++) {
      if ((mode & (0400 >> i)) != 0) {
        bits.add(order[i]);
      }
    }
    return bits;
  }
}
