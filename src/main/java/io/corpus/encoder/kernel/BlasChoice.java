package io.corpus.encoder.kernel;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Which native BLAS netlib should load, decided before it loads one. The system's
 * {@code libblas.so.3} is whatever the machine's alternatives point at: OpenBLAS, or Debian's
 * reference BLAS ({@code libblas3}, pulled in by numpy, R and PyTorch packages), which computes
 * right but about 40 times slower. So the file is looked at first, and the reference BLAS is
 * passed over for a system {@code libopenblas.so.0}, else the bundled OpenBLAS.
 *
 * <p>{@code encoder.blas}: {@code auto} (that rule), {@code system} ({@code libblas.so.3}
 * whatever it is, with a warning that states the cost when it is not optimized), {@code bundled}.
 *
 * @param path the library for netlib's {@code nativeLibPath}; empty: netlib's own lookup of
 *     {@code libblas.so.3}
 * @param source where it comes from, for the log: {@code system libblas.so.3}, ...
 * @param kind what the file is, as far as its contents tell
 * @param reason why it was chosen, one sentence
 * @param warning a warning to log, or empty
 */
record BlasChoice(Optional<Path> path, String source, Kind kind, String reason,
    Optional<String> warning) {

  /** What a BLAS library file is, from the names it carries. */
  enum Kind {
    OPENBLAS("OpenBLAS"), MKL("Intel MKL"), BLIS("BLIS"), ATLAS("ATLAS"),
    REFERENCE_OR_UNKNOWN("reference BLAS or unknown");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    String label() {
      return label;
    }

    boolean optimized() {
      return this != REFERENCE_OR_UNKNOWN;
    }
  }

  /** A library file found on this machine, and what it is. */
  record Candidate(Path path, Kind kind) {
    static Optional<Candidate> of(Optional<Path> path) {
      return path.map(p -> new Candidate(p, classify(p)));
    }
  }

  /**
   * Chooses among what the machine has.
   *
   * @param choice {@code auto}, {@code system} or {@code bundled}
   * @param systemBlas what {@code libblas.so.3} resolves to, if anything
   * @param systemOpenBlas what {@code libopenblas.so.0} resolves to, if anything
   * @param bundled the bundled OpenBLAS, if this platform has one (extracted only if chosen)
   */
  static BlasChoice choose(String choice, Optional<Candidate> systemBlas,
      Optional<Candidate> systemOpenBlas, Optional<java.util.function.Supplier<Path>> bundled) {
    if (!List.of("auto", "system", "bundled").contains(choice)) {
      throw new IllegalArgumentException(BundledOpenBlas.CHOICE + " = '" + choice
          + "' is not one of auto, system, bundled");
    }
    if (choice.equals("bundled") && bundled.isPresent()) {
      return bundled(bundled.get(), "asked for (" + BundledOpenBlas.CHOICE + " = bundled)");
    }
    if (choice.equals("system") || choice.equals("bundled")) {
      Kind kind = systemBlas.map(Candidate::kind).orElse(Kind.REFERENCE_OR_UNKNOWN);
      String why = choice.equals("system") ? "asked for (" + BundledOpenBlas.CHOICE + " = system)"
          : "no bundled OpenBLAS for this platform";
      Optional<String> warning = kind.optimized() ? Optional.empty() : Optional.of(
          "BLAS: libblas.so.3 is " + describe(systemBlas) + " and " + why + ": matrix products "
          + "run about 40 times slower than on OpenBLAS (5 instead of 200 GFLOP/s on two cores)."
          + " Install OpenBLAS (Debian: apt-get install libopenblas0-pthread) or set "
          + BundledOpenBlas.CHOICE + " = auto.");
      return new BlasChoice(Optional.empty(), "system libblas.so.3", kind, why, warning);
    }
    if (systemBlas.isPresent() && systemBlas.get().kind().optimized()) {
      return new BlasChoice(Optional.empty(), "system libblas.so.3", systemBlas.get().kind(),
          "libblas.so.3 is " + describe(systemBlas), Optional.empty());
    }
    String passedOver = systemBlas.isPresent()
        ? "libblas.so.3 is " + describe(systemBlas) + ", passed over"
        : "no system libblas.so.3";
    if (systemOpenBlas.isPresent() && systemOpenBlas.get().kind() == Kind.OPENBLAS) {
      return new BlasChoice(Optional.of(systemOpenBlas.get().path()), "system libopenblas.so.0",
          Kind.OPENBLAS, passedOver + "; the system OpenBLAS is used instead", Optional.empty());
    }
    if (bundled.isPresent()) {
      return bundled(bundled.get(), passedOver + " and no system OpenBLAS");
    }
    Kind kind = systemBlas.map(Candidate::kind).orElse(Kind.REFERENCE_OR_UNKNOWN);
    return new BlasChoice(Optional.empty(), "system libblas.so.3", kind,
        passedOver + ", and nothing better was found", Optional.of("BLAS: " + passedOver
        + " and there is neither a system nor a bundled OpenBLAS: matrix products run 10 to 40 "
        + "times slower. Install OpenBLAS (Debian: apt-get install libopenblas0-pthread)."));
  }

  private static BlasChoice bundled(java.util.function.Supplier<Path> bundled, String reason) {
    return new BlasChoice(Optional.of(bundled.get()), "bundled OpenBLAS "
        + BundledOpenBlas.VERSION + " (org.bytedeco:openblas)", Kind.OPENBLAS, reason,
        Optional.empty());
  }

  private static String describe(Optional<Candidate> candidate) {
    return candidate.map(c -> c.kind().label() + " (" + c.path() + ")").orElse("missing");
  }

  /**
   * What a BLAS library file is, from the names in it: its exported symbols and the libraries it
   * needs (Debian's OpenBLAS {@code libblas.so.3} is a small file that needs
   * {@code libopenblas.so.0}). The reference BLAS carries none of these names.
   */
  static Kind classify(Path file) {
    String text;
    try (InputStream in = Files.newInputStream(file)) {
      // The names sit in the dynamic string table near the start of the file (it ends below
      // 1 MB in Debian's and the bundled OpenBLAS, whose files are 36 MB and more).
      text = new String(in.readNBytes(4 << 20), StandardCharsets.ISO_8859_1)
          .toLowerCase(Locale.ROOT);
    } catch (IOException e) {
      return Kind.REFERENCE_OR_UNKNOWN;
    }
    if (text.contains("openblas_get_config") || text.contains("libopenblas")) {
      return Kind.OPENBLAS;
    }
    if (text.contains("mkl_blas") || text.contains("libmkl")) {
      return Kind.MKL;
    }
    if (text.contains("bli_info_get_version_str") || text.contains("libblis")) {
      return Kind.BLIS;
    }
    if (text.contains("libatlas") || text.contains("atl_xerbla")) {
      return Kind.ATLAS;
    }
    return Kind.REFERENCE_OR_UNKNOWN;
  }

  /**
   * The file the dynamic linker would load for {@code soname}: LD_LIBRARY_PATH first, then the
   * linker's cache, links resolved.
   */
  static Optional<Path> resolve(String soname) {
    List<Path> candidates = new ArrayList<>();
    String paths = System.getenv("LD_LIBRARY_PATH");
    if (paths != null) {
      for (String dir : paths.split(":")) {
        if (!dir.isEmpty()) {
          candidates.add(Path.of(dir, soname));
        }
      }
    }
    candidates.addAll(cachedPaths(Path.of("/etc/ld.so.cache"), soname));
    for (Path candidate : candidates) {
      try {
        if (Files.isReadable(candidate)) {
          return Optional.of(candidate.toRealPath());
        }
      } catch (IOException e) {
        // a dangling link: try the next
      }
    }
    return Optional.empty();
  }

  /** Paths ending in {@code /soname} among the linker cache's strings. */
  static List<Path> cachedPaths(Path cache, String soname) {
    List<Path> found = new ArrayList<>();
    try {
      String text = new String(Files.readAllBytes(cache), StandardCharsets.ISO_8859_1);
      for (String entry : text.split("\0")) {
        if (entry.startsWith("/") && entry.endsWith("/" + soname)) {
          found.add(Path.of(entry));
        }
      }
    } catch (IOException | RuntimeException e) {
      // no cache (not glibc, or not readable): nothing found there
    }
    return found;
  }
}
