package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundled OpenBLAS is never loaded from a file someone else put in java.io.tmpdir: a library
 * planted where older versions extracted it (a folder owned by another user, or a symbolic link to
 * the planter's folder) is passed by; the library loaded is the job's own checked copy, in its
 * cache ({@link io.corpus.encoder.common.NativeCache}).
 */
class PlantedBlasTest {
  @TempDir
  Path tmp;

  private static final String OLD_FOLDER = "corpus-encoder-openblas-" + BundledOpenBlas.VERSION
      + "-" + System.getProperty("user.name");

  /** A "library" that is not one: loading it would fail, computing with it impossible. */
  private static void plant(Path folder) throws Exception {
    Files.createDirectories(folder);
    Files.writeString(folder.resolve("libopenblas.so.0"), "planted: not the jar's OpenBLAS");
  }

  private String[] probeBundled() throws Exception {
    return RowMajorBlasTest.probe(Map.of("XDG_CACHE_HOME", tmp.resolve("cache").toString()),
        "-Dencoder.blas=bundled", "-Djava.io.tmpdir=" + tmp);
  }

  private void assertOwnCopy(String[] lines, Path planted) throws Exception {
    assertTrue(lines[0].contains("bundled OpenBLAS " + BundledOpenBlas.VERSION), lines[0]);
    assertTrue(Double.parseDouble(lines[1]) < 1e-4, "largest error " + lines[1]);
    assertFalse(lines[2].isEmpty(), "an OpenBLAS is mapped");
    for (String file : lines[2].split(" ")) {
      Path mapped = Path.of(file);
      assertFalse(mapped.startsWith(planted.toRealPath()), file);
      assertTrue(mapped.startsWith(tmp.resolve("cache/corpus-encoder")), file);   // its cache
      assertFalse(mapped.getParent().getFileName().toString().equals(OLD_FOLDER), file);
    }
    // The process removed its own copy when it exited; the planted file is still there.
    try (var left = Files.list(tmp)) {
      assertTrue(left.noneMatch(p -> p.getFileName().toString().startsWith(
          "corpus-encoder-openblas-" + BundledOpenBlas.VERSION + "-") && !p.endsWith(OLD_FOLDER)
          && !Files.isSymbolicLink(p)));
    }
  }

  @Test
  void aFolderOfAnotherUserAtTheOldPathIsNotUsed() throws Exception {
    Path planted = tmp.resolve(OLD_FOLDER);
    plant(planted);
    Files.setPosixFilePermissions(planted, PosixFilePermissions.fromString("rwxrwxrwx"));
    if (System.getProperty("user.name").equals("root")) {
      UserPrincipal nobody = planted.getFileSystem().getUserPrincipalLookupService()
          .lookupPrincipalByName("nobody");
      Files.setOwner(planted, nobody);
      Files.setOwner(planted.resolve("libopenblas.so.0"), nobody);
    }
    assertOwnCopy(probeBundled(), planted);
    assertEquals("planted: not the jar's OpenBLAS",
        Files.readString(planted.resolve("libopenblas.so.0")));
  }

  @Test
  void aSymbolicLinkAtTheOldPathIsNotFollowed() throws Exception {
    Path planterFolder = tmp.resolve("planter");
    plant(planterFolder);
    Files.createSymbolicLink(tmp.resolve(OLD_FOLDER), planterFolder);
    assertOwnCopy(probeBundled(), planterFolder);
  }
}
