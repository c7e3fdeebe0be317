package io.corpus.encoder.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.FileNotFoundException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local file system the job's session and its checks before Spark use: the permissions it
 * sets, and every file's status as Hadoop's own local file system gives it.
 */
class NioLocalFileSystemTest {
  @TempDir Path dir;

  @BeforeEach
  void javaSetsThePermissionsHere() {
    assumeTrue(NioLocalFileSystem.usesJava(), "Hadoop's native library is loaded");
  }

  private static FileSystem open(Configuration conf) throws Exception {
    return FileSystem.newInstance(URI.create("file:///"), conf);
  }

  @Test
  void theChecksBeforeSparkUseItUnlessAnotherIsNamed() throws Exception {
    try (FileSystem fs = open(LocalPaths.beforeSpark())) {
      assertInstanceOf(NioLocalFileSystem.class, fs);
    }
    Configuration named = new Configuration();
    named.set(NioLocalFileSystem.KEY, org.apache.hadoop.fs.LocalFileSystem.class.getName());
    assertEquals(org.apache.hadoop.fs.LocalFileSystem.class.getName(),
        NioLocalFileSystem.install(named).get(NioLocalFileSystem.KEY));
  }

  @Test
  void filesAndFoldersGetTheUmaskedPermissionsAndChecksums() throws Exception {
    Configuration conf = NioLocalFileSystem.install(new Configuration());
    conf.set("fs.permissions.umask-mode", "027");
    try (FileSystem fs = open(conf)) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(
          dir.resolve("a/b/part-0.parquet").toUri());
      try (FSDataOutputStream out = fs.create(file)) {
        out.writeBytes("rows");
      }
      assertEquals("rw-r-----", PosixFilePermissions.toString(
          Files.getPosixFilePermissions(dir.resolve("a/b/part-0.parquet"))));
      assertEquals("rwxr-x---", PosixFilePermissions.toString(
          Files.getPosixFilePermissions(dir.resolve("a/b"))));
      assertEquals("rwxr-x---", PosixFilePermissions.toString(
          Files.getPosixFilePermissions(dir.resolve("a"))));
      assertEquals(List.of(".part-0.parquet.crc", "part-0.parquet"), names(dir.resolve("a/b")));

      fs.setPermission(file, new FsPermission((short) 0451));
      assertEquals("r--r-x--x", PosixFilePermissions.toString(
          Files.getPosixFilePermissions(dir.resolve("a/b/part-0.parquet"))));
      // a sticky folder: Java cannot set it, Hadoop's own way does
      fs.setPermission(new org.apache.hadoop.fs.Path(dir.resolve("a").toUri()),
          new FsPermission((short) 01777));
      assertEquals(01777, fs.getFileStatus(new org.apache.hadoop.fs.Path(dir.resolve("a").toUri()))
          .getPermission().toShort());
    }
  }

  @Test
  void statusesAreHadoopsOwn() throws Exception {
    Path file = Files.writeString(dir.resolve("rows.parquet"), "0123456789");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r---w-"));
    Path folder = Files.createDirectory(dir.resolve("folder"));
    Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwx--x---"));
    Path sticky = Files.createDirectory(dir.resolve("shared"));
    Path link = Files.createSymbolicLink(dir.resolve("link.parquet"), file);
    Configuration conf = new Configuration();
    RawLocalFileSystem hadoops = new RawLocalFileSystem();
    hadoops.initialize(URI.create("file:///"), conf);
    hadoops.setPermission(new org.apache.hadoop.fs.Path(sticky.toUri()),
        new FsPermission((short) 01755));
    try (FileSystem ours = open(NioLocalFileSystem.install(new Configuration()))) {
      for (Path p : List.of(file, folder, sticky, link)) {
        org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(p.toString());
        FileStatus expected = hadoops.getFileStatus(path);
        FileStatus actual = ours.getFileStatus(path);
        String where = p.getFileName().toString();
        assertEquals(expected.getPath(), actual.getPath(), where);
        assertEquals(expected.getLen(), actual.getLen(), where);
        assertEquals(expected.isDirectory(), actual.isDirectory(), where);
        assertEquals(expected.getModificationTime(), actual.getModificationTime(), where);
        assertEquals(expected.getBlockSize(), actual.getBlockSize(), where);
        assertEquals(expected.getReplication(), actual.getReplication(), where);
        assertEquals(expected.getPermission(), actual.getPermission(), where);
        assertEquals(expected.getOwner(), actual.getOwner(), where);
        assertEquals(expected.getGroup(), actual.getGroup(), where);
      }
      // listings build each entry's status the same way
      FileStatus[] listed = ours.listStatus(new org.apache.hadoop.fs.Path(dir.toUri()));
      assertEquals(4, listed.length);
      for (FileStatus status : listed) {
        assertEquals(hadoops.getFileStatus(status.getPath()).getPermission(),
            status.getPermission(), status.getPath().toString());
      }
      assertThrows(FileNotFoundException.class, () -> ours.getFileStatus(
          new org.apache.hadoop.fs.Path(dir.resolve("missing").toString())));
    }
  }

  private static List<String> names(Path folder) throws Exception {
    try (var entries = Files.list(folder)) {
      return entries.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}
