package io.corpus.encoder.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every test class that starts a JVM of its own is in the slow tier ({@link Slow}), so that
 * {@code jobs/test --fast} starts none.
 */
class SlowTierTest {
  /** A JVM started: through ChildJvm, or a ProcessBuilder given a java command. */
  private static final Pattern STARTS_A_JVM = Pattern.compile(
      "ChildJvm\\.(run|builder)\\(|new ProcessBuilder\\((java\\b|Path\\.of\\(System\\.getProperty"
          + "\\(\"java\\.home\"\\))");

  @Test
  void everyTestClassThatStartsAJvmIsMarkedSlow() throws IOException {
    List<String> unmarked;
    List<String> starting;
    try (Stream<Path> files = Files.walk(Path.of("src", "test", "java"))) {
      starting = files.filter(f -> f.getFileName().toString().endsWith("Test.java"))
          .filter(f -> STARTS_A_JVM.matcher(read(f)).find())
          .map(Path::toString).sorted().toList();
    }
    unmarked = starting.stream().filter(f -> !read(Path.of(f)).contains("@Slow")).toList();
    assertTrue(starting.size() >= 6, "classes found starting a JVM: " + starting);
    assertEquals(List.of(), unmarked, "test classes starting a JVM without @Slow");
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
