package io.corpus.encoder.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;

/** The files mapped into this process (Linux's /proc/self/maps) whose names hold a word. */
public final class ProbeMaps {
  private ProbeMaps() {}

  public static Set<String> mapped(String word) {
    Set<String> files = new TreeSet<>();
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
        int slash = line.indexOf('/');
        if (slash >= 0 && line.substring(slash).contains(word)) {
          files.add(line.substring(slash).trim());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }
}
