package io.corpus.encoder.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The configuration guide's tables follow the catalogue: its settings table names every setting
 * and nothing else, and its table of the settings that shape rows is the one rendered from the
 * catalogue's flags (a setting marked so is listed there, in the run summary's {@code settings}
 * and in the reuse key, all from the one flag).
 */
class SettingsTableTest {
  static final Path GUIDE = Path.of("src/site/markdown/configuration.md");
  static final String BEGIN = "<!-- settings that shape rows: rendered from config/Settings -->";
  static final String END = "<!-- end of settings that shape rows -->";
  private static final Pattern CODE = Pattern.compile("`([^`]+)`");

  /** The table of the catalogue's settings that shape rows: key, default, what it is. */
  static String rowShapingTable(List<Setting<?>> catalogue) {
    StringBuilder table = new StringBuilder("| key | default | meaning |\n| --- | --- | --- |\n");
    for (Setting<?> setting : catalogue) {
      if (setting.shapesRows()) {
        Object value = setting.defaultValue();
        String shown = value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
        table.append("| `").append(setting.key()).append("` | `").append(shown).append("` | ")
            .append(setting.doc().replace("|", "\\|").replace("<", "&lt;"))
            .append(" |\n");
      }
    }
    return table.toString();
  }

  @Test
  void theGuidesTableOfRowShapingSettingsIsTheCataloguesAndHoldsANewOne() throws IOException {
    String guide = Files.readString(GUIDE);
    int begin = guide.indexOf(BEGIN);
    int end = guide.indexOf(END);
    assertTrue(begin >= 0 && end > begin, GUIDE + " has no section between " + BEGIN + " and "
        + END);
    String written = guide.substring(begin + BEGIN.length(), end).strip() + "\n";
    assertEquals(rowShapingTable(Settings.ALL), written,
        GUIDE + "'s table of settings that shape rows is not the catalogue's; paste the expected");
    Setting<String> fake = FakeSettings.fake("output.fake-shaping", "x", true);
    assertTrue(rowShapingTable(FakeSettings.catalogueWith(fake))
        .contains("| `output.fake-shaping` | `\"x\"` |"));
    assertTrue(!rowShapingTable(FakeSettings.catalogueWith(
        FakeSettings.fake("output.fake-other", "x", false))).contains("fake-other"));
  }

  @Test
  void theGuidesSettingsTableNamesEverySettingAndNothingElse() throws IOException {
    Set<String> named = new TreeSet<>();
    String guide = Files.readString(GUIDE);
    for (String line : guide.substring(0, guide.indexOf(BEGIN)).split("\n")) {
      String first = line.startsWith("| `") ? line.substring(2, line.indexOf(" |", 2)) : "";
      Matcher m = CODE.matcher(first);
      String parent = "";
      while (m.find()) {
        String name = m.group(1);
        if (name.startsWith(".") && !parent.isEmpty()) {
          named.add(parent + name);
        } else if (name.matches("(input|model|output|execution)\\.[a-z.-]+")) {
          named.add(name);
          parent = name.substring(0, name.lastIndexOf('.'));
        }
      }
    }
    Set<String> declared = Settings.ALL.stream().map(Setting::key)
        .collect(Collectors.toCollection(TreeSet::new));
    Set<String> missing = new TreeSet<>(declared);
    missing.removeAll(named);
    Set<String> unknown = new TreeSet<>(named);
    unknown.removeAll(declared);
    assertEquals(Set.of(), missing, "settings the guide's tables do not name");
    assertEquals(Set.of(), unknown, "names in the guide's tables that are no setting");
  }
}
