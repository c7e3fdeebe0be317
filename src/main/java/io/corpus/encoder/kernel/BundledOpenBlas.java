package io.corpus.encoder.kernel;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Native BLAS without root: the OpenBLAS build shipped in the {@code org.bytedeco:openblas} jar
 * (on the classpath, and in the application jar), extracted once to a folder under
 * java.io.tmpdir, for machines without an optimized system BLAS ({@link BlasChoice}). System
 * property {@value #CHOICE} chooses: {@code auto}, {@code system} or {@code bundled}.
 */
final class BundledOpenBlas {
  static final String CHOICE = "encoder.blas";
  static final String VERSION = "0.3.31";
  // The OpenBLAS library and what it links to; its RUNPATH is $ORIGIN, so they sit side by side.
  private static final List<String> FILES = List.of("libopenblas.so.0", "libgfortran.so.5",
      "libquadmath.so.0", "libgcc_s.so.1");

  private BundledOpenBlas() {}

  /**
   * A way to the bundled OpenBLAS on this platform (extracting it when called), or empty when
   * the jar carries none for it.
   */
  static Optional<Supplier<Path>> forThisPlatform() {
    String folder = resourceFolder();
    if (folder == null
        || BundledOpenBlas.class.getClassLoader().getResource(folder + FILES.get(0)) == null) {
      return Optional.empty();
    }
    return Optional.of(() -> extract(folder));
  }

  private static String resourceFolder() {
    if (!System.getProperty("os.name").toLowerCase().contains("linux")) {
      return null;
    }
    return switch (System.getProperty("os.arch")) {
      case "amd64", "x86_64" -> "org/bytedeco/openblas/linux-x86_64/";
      case "aarch64", "arm64" -> "org/bytedeco/openblas/linux-arm64/";
      default -> null;
    };
  }

  /** Copies the libraries to a versioned folder (once; a complete copy is reused). */
  private static Path extract(String folder) {
    Path dir = Path.of(System.getProperty("java.io.tmpdir"),
        "corpus-encoder-openblas-" + VERSION + "-" + System.getProperty("user.name", "user"));
    try {
      Files.createDirectories(dir);
      for (String file : FILES) {
        Path target = dir.resolve(file);
        try (InputStream in = BundledOpenBlas.class.getClassLoader()
            .getResourceAsStream(folder + file)) {
          if (in == null) {
            continue;   // a dependency this platform's build does not ship
          }
          if (Files.exists(target)) {
            continue;
          }
          Path partial = Files.createTempFile(dir, file, ".part");
          Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
          Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);   // concurrent JVMs
        }
      }
      return dir.resolve(FILES.get(0));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot extract the bundled OpenBLAS to " + dir, e);
    }
  }
}
