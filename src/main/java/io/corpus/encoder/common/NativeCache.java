package io.corpus.encoder.common;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jar's native libraries as files, extracted once per user instead of once per process
 * (oneDNN's is 90 MB: inflating, writing and checking it took 1.2 to 1.6 s of every int8 job's
 * start). The copies live in {@code $XDG_CACHE_HOME/corpus-encoder} (else
 * {@code ~/.cache/corpus-encoder}), one folder per set of libraries, named after the jar entries'
 * sizes and checksums, so a new version gets a folder of its own.
 *
 * <p>A cached folder is used only when this user made it: the cache, the folder and every file
 * in it are this user's and writable by nobody else, no link among them, and each file's SHA-256
 * equals the one written beside it when it was extracted and compared with the jar's bytes.
 * Otherwise the libraries are extracted into a private folder of this process's own
 * ({@link NativeFiles}), as without a cache, and a warning says what was wrong; nothing in the
 * cache is removed or overwritten.
 */
public final class NativeCache {
  private static final Logger LOG = LoggerFactory.getLogger(NativeCache.class);
  private static final String SUMS = "SHA256SUMS";

  private NativeCache() {}

  /**
   * A folder holding each resource under its file name ({@code files}: name to resource path),
   * checked as the class comment says.
   */
  public static Path copies(ClassLoader loader, String label, Map<String, String> files) {
    return copies(loader, label, files, root());
  }

  static Path copies(ClassLoader loader, String label, Map<String, String> files,
      Optional<Path> root) {
    if (root.isPresent()) {
      try {
        Path folder = root.get().resolve(label + "-" + key(loader, files));
        Optional<String> problem = Files.exists(folder, LinkOption.NOFOLLOW_LINKS)
            ? untrusted(folder, files.keySet())
            : make(loader, files, root.get(), folder);
        if (problem.isEmpty()) {
          return folder;
        }
        LOG.warn("Not using the cached copy of {}: {}; extracting a private copy for this "
            + "process", label, problem.get());
      } catch (IOException | UncheckedIOException e) {
        LOG.warn("No cached copy of {} ({}); extracting a private copy for this process", label,
            e.getMessage());
      }
    }
    Path dir = NativeFiles.privateFolder("corpus-encoder-" + label + "-");
    files.forEach((name, resource) -> NativeFiles.extract(loader, resource, dir, name));
    return dir;
  }

  /** {@code $XDG_CACHE_HOME/corpus-encoder}, else {@code ~/.cache/corpus-encoder}. */
  static Optional<Path> root() {
    String xdg = System.getenv("XDG_CACHE_HOME");
    if (xdg != null && !xdg.isEmpty()) {
      return Optional.of(Path.of(xdg, "corpus-encoder"));
    }
    String home = System.getProperty("user.home");
    return home == null || home.isEmpty() || home.equals("?") ? Optional.empty()
        : Optional.of(Path.of(home, ".cache", "corpus-encoder"));
  }

  /**
   * Extracts the files into a fresh owner-only folder in the cache, each checked against the
   * jar's copy, writes their digests beside them and renames the folder into place. When another
   * process put the same folder there first, its copy is checked and used.
   */
  private static Optional<String> make(ClassLoader loader, Map<String, String> files, Path root,
      Path folder) throws IOException {
    Files.createDirectories(root,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Optional<String> unsafe = openToOthers(root.getParent()).or(() -> unsafeFolder(root));
    if (unsafe.isPresent()) {
      return unsafe;
    }
    Path partial = Files.createTempDirectory(root, folder.getFileName() + ".",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    StringBuilder sums = new StringBuilder();
    for (Map.Entry<String, String> file : files.entrySet()) {
      String sum = NativeFiles.extract(loader, file.getValue(), partial, file.getKey());
      Files.setPosixFilePermissions(partial.resolve(file.getKey()),
          PosixFilePermissions.fromString("r-x------"));
      sums.append(sum).append("  ").append(file.getKey()).append('\n');
    }
    Path list = Files.writeString(partial.resolve(SUMS), sums);
    Files.setPosixFilePermissions(list, PosixFilePermissions.fromString("r--------"));
    try {
      Files.move(partial, folder, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {   // another process's folder arrived first: ours goes at exit
      NativeFiles.deleteAtExit(partial);
      return Files.exists(folder, LinkOption.NOFOLLOW_LINKS) ? untrusted(folder, files.keySet())
          : Optional.of("cannot move " + partial + " to " + folder + ": " + e);
    }
    LOG.info("Extracted {} into {}, once for this user", String.join(", ", files.keySet()),
        folder);
    return Optional.empty();
  }

  /** Why the cached folder must not be loaded, or empty when it may. */
  static Optional<String> untrusted(Path folder, Iterable<String> names) throws IOException {
    Optional<String> unsafe = openToOthers(folder.getParent().getParent())
        .or(() -> unsafeFolder(folder.getParent())).or(() -> unsafeFolder(folder));
    if (unsafe.isPresent()) {
      return unsafe;
    }
    Map<String, String> recorded = new LinkedHashMap<>();
    Optional<String> list = NativeFiles.unsafeFile(folder.resolve(SUMS));
    if (list.isPresent()) {
      return list;
    }
    for (String line : Files.readAllLines(folder.resolve(SUMS), StandardCharsets.UTF_8)) {
      String[] parts = line.split(" {2}", 2);
      if (parts.length == 2) {
        recorded.put(parts[1], parts[0]);
      }
    }
    for (String name : names) {
      Path file = folder.resolve(name);
      Optional<String> unsafeFile = NativeFiles.unsafeFile(file);
      if (unsafeFile.isPresent()) {
        return unsafeFile;
      }
      String sum = NativeFiles.sha256(file);
      if (!sum.equals(recorded.get(name))) {
        return Optional.of(file + " has SHA-256 " + sum + ", not the " + recorded.get(name)
            + " recorded when it was extracted");
      }
    }
    return Optional.empty();
  }

  /** Why others could swap the cache itself ({@code parent}: the folder holding it), or empty. */
  private static Optional<String> openToOthers(Path parent) {
    try {
      return NativeFiles.writableByOthers(parent)
          ? Optional.of(parent + " can be written by other users") : Optional.empty();
    } catch (IOException e) {
      return Optional.of(parent + " cannot be checked: " + e.getMessage());
    }
  }

  private static Optional<String> unsafeFolder(Path folder) {
    try {
      return NativeFiles.unsafeFolder(folder);
    } catch (IOException e) {
      return Optional.of(folder + " cannot be checked: " + e.getMessage());
    }
  }

  /**
   * The files' names and their jar entries' sizes and CRC-32s (read from the jar's directory,
   * nothing inflated), hashed: the same libraries give the same folder name.
   */
  private static String key(ClassLoader loader, Map<String, String> files) throws IOException {
    MessageDigest sha = Sha256.digest();
    for (Map.Entry<String, String> file : files.entrySet()) {
      URL url = loader.getResource(file.getValue());
      if (url == null) {
        throw new IOException(file.getValue() + " is not on the classpath");
      }
      URLConnection connection = url.openConnection();
      String identity;
      if (connection instanceof JarURLConnection jar) {
        var entry = jar.getJarEntry();
        identity = entry.getSize() + ":" + Long.toHexString(entry.getCrc());
      } else {
        try (InputStream in = connection.getInputStream()) {
          identity = NativeFiles.sha256(in);
        }
      }
      sha.update((file.getKey() + "=" + identity + "\n").getBytes(StandardCharsets.UTF_8));
    }
    return HexFormat.of().formatHex(sha.digest()).substring(0, 16);
  }
}
