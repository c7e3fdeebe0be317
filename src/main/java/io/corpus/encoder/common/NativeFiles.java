package io.corpus.encoder.common;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Native libraries that ship inside jars, put on disk so that nobody else's file is loaded in
 * their place: extracted only into a folder this process creates itself (owner-only, fresh name),
 * written under a temporary name and renamed, and compared with the jar's own copy (SHA-256)
 * before anything loads them. A file found on disk is trusted only when it is a regular file (no
 * link) in a folder that only its owner, this user, can write, and equal to the jar's copy.
 */
public final class NativeFiles {
  private NativeFiles() {}

  /**
   * A new folder under java.io.tmpdir that only this user can enter, removed when the JVM exits.
   */
  public static Path privateFolder(String prefix) {
    try {
      Path dir = Files.createTempDirectory(prefix,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      Optional<String> unsafe = unsafeFolder(dir);
      if (unsafe.isPresent()) {
        throw new IOException(unsafe.get());
      }
      deleteAtExit(dir);
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot make a private folder for native libraries", e);
    }
  }

  /**
   * Copies {@code resource} to {@code folder/name} (a private folder) and checks the file against
   * the jar's copy; returns the copy's SHA-256, in hex.
   */
  public static String extract(ClassLoader loader, String resource, Path folder, String name) {
    Path target = folder.resolve(name);
    try {
      byte[] expected;
      Path partial = Files.createTempFile(folder, name, ".part");
      try (InputStream in = open(loader, resource)) {
        DigestInputStream digesting = new DigestInputStream(in, Sha256.digest());
        Files.copy(digesting, partial, StandardCopyOption.REPLACE_EXISTING);
        expected = digesting.getMessageDigest().digest();
      }
      Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
      byte[] written = digest(target);
      if (!Arrays.equals(expected, written)) {
        throw new IOException(target + " differs from " + resource + " in the jar right after "
            + "it was written");
      }
      return HexFormat.of().formatHex(written);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot extract " + resource + " to " + folder, e);
    }
  }

  /**
   * Why {@code file} must not be loaded as the jar's {@code resource}, or empty when it may: it
   * is a regular file, not a link, owned by this user, in a folder only this user can write, with
   * the jar's bytes.
   */
  public static Optional<String> untrusted(Path file, ClassLoader loader, String resource) {
    try {
      Optional<String> unsafe = unsafeFile(file);
      if (unsafe.isPresent()) {
        return unsafe;
      }
      Optional<String> folder = unsafeFolder(file.getParent());
      if (folder.isPresent()) {
        return folder;
      }
      byte[] jar;
      try (InputStream in = open(loader, resource)) {
        jar = digest(in);
      }
      if (!Arrays.equals(jar, digest(file))) {
        return Optional.of(file + " differs from " + resource + " in the jar (SHA-256 "
            + HexFormat.of().formatHex(digest(file)) + ")");
      }
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of(file + " cannot be checked: " + e.getMessage());
    }
  }

  /**
   * Why {@code file} is not a regular file (no link) of this user's that nobody else can write,
   * or empty.
   */
  public static Optional<String> unsafeFile(Path file) {
    try {
      return unsafe(file, false);
    } catch (IOException e) {
      return Optional.of(file + " cannot be checked: " + e.getMessage());
    }
  }

  /** The file's SHA-256, in hex. */
  public static String sha256(Path file) throws IOException {
    return HexFormat.of().formatHex(digest(file));
  }

  /** The stream's SHA-256, in hex, read to its end. */
  static String sha256(InputStream in) throws IOException {
    return HexFormat.of().formatHex(digest(in));
  }

  /** Removes {@code root} and what it holds when the JVM exits. */
  public static void deleteAtExit(Path root) {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(root)));
  }

  /** Why {@code dir} is not a folder only this user controls, or empty. */
  public static Optional<String> unsafeFolder(Path dir) throws IOException {
    return unsafe(dir, true);
  }

  private static Optional<String> unsafe(Path path, boolean folder) throws IOException {
    if (Files.isSymbolicLink(path)) {
      return Optional.of(path + " is a symbolic link");
    }
    if (folder ? !Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)
        : !Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.of(path + (folder ? " is not a folder" : " is not a regular file"));
    }
    if (!ownedByMe(path)) {
      return Optional.of(path + " belongs to " + Files.getOwner(path, LinkOption.NOFOLLOW_LINKS)
          .getName() + ", not to " + System.getProperty("user.name"));
    }
    if (writableByOthers(path)) {
      return Optional.of(path + " can be written by other users");
    }
    return Optional.empty();
  }

  private static boolean ownedByMe(Path path) throws IOException {
    UserPrincipal me = FileSystems.getDefault().getUserPrincipalLookupService()
        .lookupPrincipalByName(System.getProperty("user.name"));
    return Files.getOwner(path, LinkOption.NOFOLLOW_LINKS).equals(me);
  }

  static boolean writableByOthers(Path path) throws IOException {
    Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(path,
        LinkOption.NOFOLLOW_LINKS);
    return permissions.contains(PosixFilePermission.GROUP_WRITE)
        || permissions.contains(PosixFilePermission.OTHERS_WRITE);
  }

  private static InputStream open(ClassLoader loader, String resource) throws IOException {
    InputStream in = loader.getResourceAsStream(resource);
    if (in == null) {
      throw new IOException(resource + " is not on the classpath");
    }
    return in;
  }

  private static byte[] digest(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      return digest(in);
    }
  }

  private static byte[] digest(InputStream in) throws IOException {
    MessageDigest sha = Sha256.digest();
    byte[] buffer = new byte[1 << 16];
    for (int n; (n = in.read(buffer)) > 0; ) {
      sha.update(buffer, 0, n);
    }
    return sha.digest();
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> walk = Files.walk(root)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // best effort at exit
    }
  }
}
