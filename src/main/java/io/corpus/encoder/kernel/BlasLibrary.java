package io.corpus.encoder.kernel;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
import io.corpus.encoder.kernel.BlasChoice.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * The native BLAS of this JVM: chosen before netlib loads one ({@link #configure}), then named
 * from what the process really mapped ({@link #loaded}), asking OpenBLAS itself for its version,
 * core type and threading, for example {@code OpenBLAS 0.3.21 (Zen, pthread)}.
 */
final class BlasLibrary {
  private static final String NETLIB_PATH = "dev.ludovic.netlib.blas.nativeLibPath";
  private static final String NETLIB_NAME = "dev.ludovic.netlib.blas.nativeLib";

  private BlasLibrary() {}

  /**
   * Decides the library and tells netlib (its {@code nativeLibPath}); a netlib property set by
   * the user wins. Call before netlib's first use.
   */
  static BlasChoice configure() {
    for (String property : new String[] {NETLIB_PATH, NETLIB_NAME}) {
      String value = System.getProperty(property);
      if (value != null) {
        Optional<Path> path = property.equals(NETLIB_PATH) ? Optional.of(Path.of(value))
            : Optional.empty();
        return new BlasChoice(path, value, path.map(BlasChoice::classify)
            .orElse(Kind.REFERENCE_OR_UNKNOWN), "set by " + property, Optional.empty());
      }
    }
    Optional<BlasChoice.Candidate> systemBlas =
        BlasChoice.Candidate.of(BlasChoice.resolve("libblas.so.3"));
    // libopenblas.so.0 is only looked at when libblas.so.3 will not do.
    boolean optimized = systemBlas.map(c -> c.kind().optimized()).orElse(false);
    Optional<BlasChoice.Candidate> systemOpenBlas = optimized ? Optional.empty()
        : BlasChoice.Candidate.of(BlasChoice.resolve("libopenblas.so.0"));
    BlasChoice choice = BlasChoice.choose(System.getProperty(BundledOpenBlas.CHOICE, "auto"),
        systemBlas, systemOpenBlas, BundledOpenBlas.forThisPlatform());
    choice.path().ifPresent(p -> System.setProperty(NETLIB_PATH, p.toString()));
    return choice;
  }

  /**
   * The BLAS library this process has mapped, named as precisely as it tells: OpenBLAS's own
   * config (version, core, threading), else the kind of the mapped file; empty if none is mapped
   * (netlib fell back to Java).
   */
  static Optional<String> loaded() {
    String other = null;      // the first mapped file that is not OpenBLAS, named by its kind
    String openBlas = null;   // the first OpenBLAS file, when it would not say more
    for (Path file : mappedBlasFiles()) {
      Kind kind = BlasChoice.classify(file);
      if (kind == Kind.OPENBLAS) {
        Optional<String> config = openBlasConfig(file);
        if (config.isPresent()) {
          return config;
        }
        openBlas = openBlas != null ? openBlas : kind.label() + " (" + file + ")";
      } else if (other == null) {
        other = kind.label() + " (" + file + ")";
      }
    }
    return Optional.ofNullable(other != null ? other : openBlas);
  }

  /** Files mapped into this process whose names say BLAS, netlib's own JNI glue left out. */
  private static Set<Path> mappedBlasFiles() {
    Set<Path> files = new LinkedHashSet<>();
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
        int slash = line.indexOf('/');
        if (slash < 0) {
          continue;
        }
        Path file = Path.of(line.substring(slash).trim());
        String name = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
        if ((name.contains("blas") || name.contains("mkl") || name.contains("blis"))
            && !name.contains("netlib")) {
          files.add(file);
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: nothing to read
    }
    return files;
  }

  /** {@code OpenBLAS 0.3.21 (Zen, pthread)}, from the library's own functions. */
  private static Optional<String> openBlasConfig(Path file) {
    try {
      NativeLibrary library = NativeLibrary.getInstance(file.toString());
      String config = call(library, "openblas_get_config");
      String core = call(library, "openblas_get_corename");
      int parallel = library.getFunction("openblas_get_parallel").invokeInt(new Object[0]);
      String[] words = config.trim().split("\\s+");
      String version = words.length > 1 ? words[0] + " " + words[1] : config.trim();
      String threading = switch (parallel) {
        case 0 -> "single-threaded";
        case 1 -> "pthread";
        case 2 -> "OpenMP";
        default -> "parallel " + parallel;
      };
      return Optional.of(version + " (" + core + ", " + threading + ")");
    } catch (RuntimeException | LinkageError e) {
      return Optional.empty();   // no JNA here, or not a full OpenBLAS: the file's kind will do
    }
  }

  private static String call(NativeLibrary library, String name) {
    Function function = library.getFunction(name);
    return function.invokeString(new Object[0], false);
  }
}
