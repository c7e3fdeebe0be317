package io.corpus.encoder.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValue;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * reference.conf documents exactly the settings {@link Settings} declares, with the same
 * defaults, each with its comment: a setting cannot be documented and missing, or the reverse.
 */
class SettingsCatalogueTest {
  private static final Config REFERENCE = ConfigFactory.parseResources(
      SettingsCatalogueTest.class.getClassLoader(), "reference.conf");

  @Test
  void referenceConfListsEverySettingAndNothingElse() {
    Set<String> documented = REFERENCE.entrySet().stream().map(Map.Entry::getKey)
        .collect(Collectors.toCollection(TreeSet::new));
    Set<String> declared = Settings.ALL.stream().map(Setting::key)
        .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(declared, documented);
    assertEquals(Settings.ALL.size(), declared.size(), "a key declared twice");
  }

  @Test
  void referenceConfHasEachDefaultAndAComment() {
    for (Setting<?> setting : Settings.ALL) {
      ConfigValue value = REFERENCE.getValue(setting.key());
      Object documented = value.unwrapped();
      Object declared = setting.defaultValue();
      if (declared instanceof Number n) {
        assertEquals(n.doubleValue(), ((Number) documented).doubleValue(), setting.key());
      } else {
        assertEquals(declared, documented, setting.key());
      }
      assertFalse(value.origin().comments().isEmpty(), setting.key() + " has no comment");
      assertFalse(setting.doc().isBlank(), setting.key() + " has no doc");
    }
  }

  @Test
  void choicesAndRulesRefuseWhatTheyShould() {
    assertTrue(Settings.POOLING.accepts("auto"));
    assertFalse(Settings.POOLING.accepts("avg"));
    assertEquals(List.of("mean", "first", "max", "last", "none", "splade", "auto"),
        Settings.POOLING.choices());
    assertFalse(Settings.ATTENTION_LAYERS.accepts(List.of(0, -1)));
    assertFalse(Settings.ATTENTION_SAMPLE.accepts(0.0));
    assertTrue(Settings.ATTENTION_SAMPLE.accepts(1.0));
    assertFalse(Settings.LAYER_NORM_EPS.accepts(Double.POSITIVE_INFINITY));
  }
}
