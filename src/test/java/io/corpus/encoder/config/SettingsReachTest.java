package io.corpus.encoder.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A setting is written in few places: declared once, then used where it does its work. These
 * four, which once were named in six to ten files each, stay within three main source files
 * under any of their names (the key, its last part, the param, the constant, the summary's).
 */
class SettingsReachTest {
  private static final Path MAIN = Path.of("src/main/java");
  private static final int MOST_FILES = 3;

  @Test
  void eachOfTheseSettingsIsNamedInAtMostThreeFiles() throws Exception {
    List<String> tooWide = new ArrayList<>();
    for (Setting<?> s : List.of(Settings.SPARSE_TOP_K, Settings.PROMPT_NAME,
        Settings.CHECKPOINT_SECONDS, Settings.DIMENSIONS)) {
      Set<Path> files = filesNaming(s);
      if (files.size() > MOST_FILES) {
        tooWide.add(s.key() + " in " + files.size() + ": " + files);
      }
    }
    assertTrue(tooWide.isEmpty(), String.join("\n", tooWide));
  }

  /**
   * These four are read by the job and by the Transformer alike, through the readings they share
   * ({@link SettingRules}); their last parts are words of the domain as well (a reranker, to
   * quantize, a role), so they are counted by what reads or sets them: the constant, the key
   * looked up as a string, the Transformer's setter. A message naming a key is not counted.
   */
  @Test
  void theSettingsBothReadersReadAreReadInAtMostThreeFiles() throws Exception {
    List<String> tooWide = new ArrayList<>();
    for (Setting<?> s : List.of(Settings.RERANKER, Settings.MULTI_VECTOR, Settings.QUANTIZE,
        Settings.ROLE)) {
      Set<Path> files = filesReading(s);
      if (files.size() > MOST_FILES) {
        tooWide.add(s.key() + " in " + files.size() + ": " + files);
      }
    }
    assertTrue(tooWide.isEmpty(), String.join("\n", tooWide));
  }

  @Test
  void theCountFindsASettingNamedAnywhere() throws Exception {
    assertTrue(filesNaming(Settings.POOLING).size() > MOST_FILES,
        "pooling, read in many places, is found in many files");
    assertTrue(filesReading(Settings.POOLING).size() > MOST_FILES,
        "pooling, read in many places, is found reading in many files");
  }

  /** The main source files that name {@code s}'s constant, its key as a string, or its setter. */
  static Set<Path> filesReading(Setting<?> s) throws IOException, IllegalAccessException {
    String tail = s.key().substring(s.key().lastIndexOf('.') + 1);
    String setter = "set" + Character.toUpperCase(camel(tail).charAt(0))
        + camel(tail).substring(1) + "(";
    Pattern reads = Pattern.compile("\\b" + constant(s) + "\\b|" + Pattern.quote("\"" + s.key()
        + "\"") + "|\\b" + Pattern.quote(setter));
    return matching(reads, "");
  }

  /** The main source files that name {@code s} in any of its forms, as whole words. */
  static Set<Path> filesNaming(Setting<?> s) throws IOException, IllegalAccessException {
    String tail = s.key().substring(s.key().lastIndexOf('.') + 1);
    List<String> forms = new ArrayList<>(List.of(s.key(), tail, tail.replace('-', '_'),
        camel(tail), constant(s)));
    if (!s.param().isEmpty()) {
      forms.add(s.param());
    }
    Pattern named = Pattern.compile(forms.stream().distinct().map(Pattern::quote)
        .map(f -> "(?<![\\w.-])" + f + "(?![\\w-])").reduce((a, b) -> a + "|" + b).orElseThrow());
    return matching(named, s.key());
  }

  /** The main source files {@code pattern} finds in, or that hold {@code text} (unless ""). */
  private static Set<Path> matching(Pattern pattern, String text) throws IOException {
    Set<Path> files = new TreeSet<>();
    try (Stream<Path> paths = Files.walk(MAIN)) {
      for (Path p : paths.filter(f -> f.toString().endsWith(".java")).toList()) {
        String source = Files.readString(p);
        if (pattern.matcher(source).find() || !text.isEmpty() && source.contains(text)) {
          files.add(MAIN.relativize(p));
        }
      }
    }
    return files;
  }

  private static String camel(String dashed) {
    StringBuilder b = new StringBuilder();
    boolean up = false;
    for (char c : dashed.toCharArray()) {
      if (c == '-') {
        up = true;
      } else {
        b.append(up ? Character.toUpperCase(c) : c);
        up = false;
      }
    }
    return b.toString();
  }

  private static String constant(Setting<?> s) throws IllegalAccessException {
    for (Field f : Settings.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.get(null) == s) {
        return f.getName();
      }
    }
    throw new AssertionError(s.key() + " is not a constant of Settings");
  }
}
