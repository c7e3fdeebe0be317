package io.corpus.encoder.common;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Native libraries are extracted once per user and reused only when the copy is still the one
 * the job made: this user's, writable by nobody else, no link, its SHA-256 as recorded.
 */
class NativeCacheTest {
  // One entry of a jar on the classpath (its key from the jar's directory), one plain file.
  private static final String IN_JAR = "org/bytedeco/opencl/linux-x86_64/libOpenCL.so.1";
  private static final String IN_FOLDER = "precision/conversions.json";
  private static final ClassLoader LOADER = NativeCacheTest.class.getClassLoader();

  @TempDir
  Path tmp;

  private static Map<String, String> files() {
    Map<String, String> files = new LinkedHashMap<>();
    files.put("libOpenCL.so.1", IN_JAR);
    files.put("conversions.json", IN_FOLDER);
    return files;
  }

  private Path copies(Path root) {
    return NativeCache.copies(LOADER, "test-1.0", files(), Optional.of(root));
  }

  private static void assertJarBytes(Path folder) throws IOException {
    for (Map.Entry<String, String> file : files().entrySet()) {
      try (InputStream in = LOADER.getResourceAsStream(file.getValue())) {
        assertArrayEquals(in.readAllBytes(), Files.readAllBytes(folder.resolve(file.getKey())),
            file.getKey());
      }
    }
  }

  @Test
  void copiesAreMadeOnceAndThenReused() throws IOException {
    Path root = tmp.resolve("cache");
    Path made = copies(root);
    assertEquals(root, made.getParent());
    assertTrue(made.getFileName().toString().startsWith("test-1.0-"), made.toString());
    assertJarBytes(made);
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(root)));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(made)));
    Path library = made.resolve("libOpenCL.so.1");
    assertEquals("r-x------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(library)));
    FileTime marked = FileTime.fromMillis(1_000_000_000_000L);
    Files.setLastModifiedTime(library, marked);

    assertEquals(made, copies(root));
    assertEquals(marked, Files.getLastModifiedTime(library), "the copy was written again");
    try (Stream<Path> entries = Files.list(root)) {
      assertEquals(1, entries.count(), "one folder in the cache, no partial copy left");
    }
  }

  @Test
  void aChangedCopyIsNotLoadedNorRemoved() throws IOException {
    Path root = tmp.resolve("cache");
    Path made = copies(root);
    Path library = made.resolve("libOpenCL.so.1");
    Files.setPosixFilePermissions(library, PosixFilePermissions.fromString("rwx------"));
    byte[] changed = Files.readAllBytes(library);
    changed[100] ^= 1;
    Files.write(library, changed);
    Files.setPosixFilePermissions(library, PosixFilePermissions.fromString("r-x------"));

    Path used = copies(root);
    assertFalse(used.startsWith(root), "the changed copy was used: " + used);
    assertJarBytes(used);
    assertArrayEquals(changed, Files.readAllBytes(library), "the cache was touched");
  }

  @Test
  void aCopyOthersCanWriteOrReachByALinkIsNotLoaded() throws IOException {
    Path root = tmp.resolve("cache");
    Path made = copies(root);
    Path library = made.resolve("libOpenCL.so.1");
    Files.setPosixFilePermissions(library, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertFalse(copies(root).startsWith(root), "a file others can write was used");

    Files.setPosixFilePermissions(library, PosixFilePermissions.fromString("r-x------"));
    assertEquals(made, copies(root));
    Files.setPosixFilePermissions(made, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertFalse(copies(root).startsWith(root), "a folder others can write was used");

    Files.setPosixFilePermissions(made, PosixFilePermissions.fromString("rwx------"));
    Path elsewhere = Files.copy(library, tmp.resolve("elsewhere.so"));
    Files.delete(library);
    Files.createSymbolicLink(library, elsewhere);
    assertFalse(copies(root).startsWith(root), "a link was followed");
  }

  @Test
  void aCacheInAFolderOthersCanWriteIsNotUsed() throws IOException {
    Path open = Files.createDirectory(tmp.resolve("open"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path used = copies(open.resolve("cache"));
    assertFalse(used.startsWith(open), "others could swap the cache: " + used);
    assertJarBytes(used);
  }
}
