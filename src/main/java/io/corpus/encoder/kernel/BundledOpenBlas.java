package io.corpus.encoder.kernel;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * Native BLAS without root: when the machine has no system BLAS ({@code libblas.so.3}), points
 * netlib at the OpenBLAS build shipped in the {@code org.bytedeco:openblas} jar (on the
 * classpath, and in the application jar), extracted once to a folder under java.io.tmpdir.
 *
 * <p>System property {@value #CHOICE} = {@code auto} (default: system if present, else bundled),
 * {@code system} (never the bundled one) or {@code bundled} (always). A netlib property set by
 * the user ({@code dev.ludovic.netlib.blas.nativeLib} or {@code .nativeLibPath}) wins.
 */
final class BundledOpenBlas {
  static final String CHOICE = "encoder.blas";
  static final String VERSION = "0.3.31";
  private static final String NETLIB_PATH = "dev.ludovic.netlib.blas.nativeLibPath";
  private static final String NETLIB_NAME = "dev.ludovic.netlib.blas.nativeLib";
  // The OpenBLAS library and what it links to; its RUNPATH is $ORIGIN, so they sit side by side.
  private static final List<String> FILES = List.of("libopenblas.so.0", "libgfortran.so.5",
      "libquadmath.so.0", "libgcc_s.so.1");

  private BundledOpenBlas() {}

  /**
   * Sets netlib's library path to the bundled OpenBLAS when it is wanted and available; returns
   * a description of the native library netlib will load (for logs and run summaries).
   */
  static String configure() {
    if (System.getProperty(NETLIB_PATH) != null) {
      return System.getProperty(NETLIB_PATH) + " (" + NETLIB_PATH + ")";
    }
    if (System.getProperty(NETLIB_NAME) != null) {
      return System.getProperty(NETLIB_NAME) + " (" + NETLIB_NAME + ")";
    }
    String choice = System.getProperty(CHOICE, "auto");
    if (!List.of("auto", "system", "bundled").contains(choice)) {
      throw new IllegalArgumentException(CHOICE + " = '" + choice + "' is not one of auto, "
          + "system, bundled");
    }
    if (choice.equals("system") || (choice.equals("auto") && systemBlasPresent())) {
      return "system libblas.so.3";
    }
    String folder = resourceFolder();
    if (folder == null || BundledOpenBlas.class.getClassLoader()
        .getResource(folder + FILES.get(0)) == null) {
      return "system libblas.so.3 (no bundled OpenBLAS for " + System.getProperty("os.name")
          + " " + System.getProperty("os.arch") + ")";
    }
    Path library = extract(folder);
    System.setProperty(NETLIB_PATH, library.toString());
    return "bundled OpenBLAS " + VERSION + " (org.bytedeco:openblas) at " + library;
  }

  /** Whether the dynamic linker knows libblas.so.3: its cache, or LD_LIBRARY_PATH. */
  static boolean systemBlasPresent() {
    try {
      Path cache = Path.of("/etc/ld.so.cache");
      if (Files.isReadable(cache) && new String(Files.readAllBytes(cache),
          StandardCharsets.ISO_8859_1).contains("libblas.so.3")) {
        return true;
      }
    } catch (IOException e) {
      // fall through to LD_LIBRARY_PATH
    }
    String paths = System.getenv("LD_LIBRARY_PATH");
    if (paths != null) {
      for (String dir : paths.split(":")) {
        if (!dir.isEmpty() && Files.exists(Path.of(dir, "libblas.so.3"))) {
          return true;
        }
      }
    }
    return false;
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
