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

  @Test
  void theCountFindsASettingNamedAnywhere() throws Exception {
    assertTrue(filesNaming(Settings.POOLING).size() > MOST_FILES,
        "pooling, read in many places, is found in many files");
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
    Set<Path> files = new TreeSet<>();
    try (Stream<Path> paths = Files.walk(MAIN)) {
      for (Path p : paths.filter(f -> f.toString().endsWith(".java")).toList()) {
        String text = Files.readString(p);
        if (named.matcher(text).find() || text.contains(s.key())) {
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
