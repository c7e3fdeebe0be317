package io.corpus.encoder.kernel;

import io.corpus.encoder.common.NativeCache;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Native BLAS without root: the OpenBLAS build shipped in the {@code org.bytedeco:openblas} jar
 * (on the classpath, and in the application jar), extracted once per user into the job's cache
 * and checked before each load ({@link NativeCache}), for machines without an optimized system
 * BLAS ({@link BlasChoice}). System property {@value #CHOICE} chooses: {@code auto}, {@code system}
 * or {@code bundled}.
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

  /**
   * The libraries' checked copies ({@link NativeCache}): a folder or file that someone else put
   * under java.io.tmpdir or in the cache is never used.
   */
  private static Path extract(String folder) {
    ClassLoader loader = BundledOpenBlas.class.getClassLoader();
    Map<String, String> files = new LinkedHashMap<>();
    for (String file : FILES) {
      if (loader.getResource(folder + file) != null) {   // else not shipped for this platform
        files.put(file, folder + file);
      }
    }
    return NativeCache.copies(loader, "openblas-" + VERSION, files).resolve(FILES.get(0));
  }
}
