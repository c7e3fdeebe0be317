package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.kernel.BlasChoice.Candidate;
import io.corpus.encoder.kernel.BlasChoice.Kind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The BLAS chosen from what a machine has, on stand-in library files: the names inside a file
 * tell its kind, and a reference BLAS as libblas.so.3 is passed over for OpenBLAS.
 */
class BlasChoiceTest {
  @TempDir
  Path dir;

  private Path file(String name, String contents) throws Exception {
    Path path = dir.resolve(name);
    Files.writeString(path, "\u007fELF...." + contents + "....", StandardCharsets.ISO_8859_1);
    return path;
  }

  private Optional<Candidate> reference() throws Exception {
    return Candidate.of(Optional.of(file("libblas.so.3", "libc.so.6\0sgemm_\0dgemm_\0xerbla_")));
  }

  private Optional<Candidate> openBlasShim() throws Exception {
    return Candidate.of(Optional.of(file("shim-libblas.so.3", "libopenblas.so.0\0sgemm_")));
  }

  private Optional<Candidate> openBlas() throws Exception {
    return Candidate.of(Optional.of(file("libopenblas.so.0", "openblas_get_config\0sgemm_")));
  }

  private final Optional<Supplier<Path>> bundled = Optional.of(() -> Path.of("/tmp/bundled.so"));

  @Test
  void kindsFromTheNamesInTheFile() throws Exception {
    assertEquals(Kind.REFERENCE_OR_UNKNOWN, reference().get().kind());
    assertEquals(Kind.OPENBLAS, openBlasShim().get().kind());
    assertEquals(Kind.OPENBLAS, openBlas().get().kind());
    assertEquals(Kind.MKL, BlasChoice.classify(file("mkl.so", "libmkl_rt.so.2")));
    assertEquals(Kind.BLIS, BlasChoice.classify(file("blis.so", "bli_info_get_version_str")));
    assertEquals(Kind.REFERENCE_OR_UNKNOWN, BlasChoice.classify(dir.resolve("missing.so")));
  }

  @Test
  void referenceBlasIsPassedOverForTheSystemOpenBlas() throws Exception {
    BlasChoice choice = BlasChoice.choose("auto", reference(), openBlas(), bundled);
    assertEquals(Kind.OPENBLAS, choice.kind());
    assertEquals(Optional.of(dir.resolve("libopenblas.so.0")), choice.path());
    assertEquals("system libopenblas.so.0", choice.source());
    assertTrue(choice.reason().contains("reference BLAS or unknown"), choice.reason());
    assertTrue(choice.reason().contains("passed over"), choice.reason());
    assertTrue(choice.warning().isEmpty());
  }

  @Test
  void referenceBlasWithoutSystemOpenBlasFallsToTheBundledOne() throws Exception {
    BlasChoice choice = BlasChoice.choose("auto", reference(), Optional.empty(), bundled);
    assertEquals(Optional.of(Path.of("/tmp/bundled.so")), choice.path());
    assertTrue(choice.source().startsWith("bundled OpenBLAS"), choice.source());
  }

  @Test
  void optimizedSystemBlasIsLeftToNetlib() throws Exception {
    BlasChoice choice = BlasChoice.choose("auto", openBlasShim(), openBlas(), bundled);
    assertEquals(Optional.empty(), choice.path());
    assertEquals("system libblas.so.3", choice.source());
    assertEquals(Kind.OPENBLAS, choice.kind());
  }

  @Test
  void noSystemBlasAtAllTakesTheBundledOne() {
    BlasChoice choice = BlasChoice.choose("auto", Optional.empty(), Optional.empty(), bundled);
    assertTrue(choice.source().startsWith("bundled OpenBLAS"), choice.source());
    assertTrue(choice.reason().contains("no system libblas.so.3"), choice.reason());
  }

  @Test
  void forcedSystemReferenceBlasWarnsOfTheCost() throws Exception {
    BlasChoice choice = BlasChoice.choose("system", reference(), openBlas(), bundled);
    assertEquals(Optional.empty(), choice.path());
    String warning = choice.warning().orElseThrow();
    assertTrue(warning.contains("40 times slower"), warning);
    assertTrue(warning.contains("reference BLAS or unknown"), warning);
  }

  @Test
  void nothingOptimizedAnywhereWarns() throws Exception {
    BlasChoice choice = BlasChoice.choose("auto", reference(), Optional.empty(),
        Optional.empty());
    assertTrue(choice.warning().orElseThrow().contains("slower"));
  }

  @Test
  void unknownChoiceIsRefusedNamingIt() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BlasChoice.choose("fast", Optional.empty(), Optional.empty(), bundled));
    assertEquals("encoder.blas = 'fast' is not one of auto, system, bundled", e.getMessage());
  }

  @Test
  void linkerCachePathsAreFoundByName() throws Exception {
    Path cache = dir.resolve("ld.so.cache");
    Files.write(cache, ("glibc-ld.so.cache1.1\0libblas.so.3\0/usr/lib/x86_64-linux-gnu/"
        + "libblas.so.3\0libopenblas.so.0\0/usr/lib/x86_64-linux-gnu/libopenblas.so.0\0")
        .getBytes(StandardCharsets.ISO_8859_1));
    assertEquals(List.of(Path.of("/usr/lib/x86_64-linux-gnu/libblas.so.3")),
        BlasChoice.cachedPaths(cache, "libblas.so.3"));
    assertEquals(List.of(), BlasChoice.cachedPaths(dir.resolve("none"), "libblas.so.3"));
  }
}
