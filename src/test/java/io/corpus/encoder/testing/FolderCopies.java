package io.corpus.encoder.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Copies of test model folders, for tests that change a file of one. */
public final class FolderCopies {
  private FolderCopies() {}

  /** {@code from} and everything under it copied to {@code to}; returns {@code to}. */
  public static Path copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(target);
        } else {
          Files.copy(file, target);
        }
      }
    }
    return to;
  }
}
