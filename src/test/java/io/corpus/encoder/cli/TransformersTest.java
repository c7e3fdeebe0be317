package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.config.Setting;
import io.corpus.encoder.config.Settings;
import io.corpus.encoder.config.SettingsParser;
import io.corpus.encoder.pipeline.EncoderTransformer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A setting that mirrors a Transformer param reaches the job's Transformer without being wired
 * by hand: each one, set alone to a value other than its default, comes out of
 * {@link Transformers#fromSettings} with that value (so a setting added to the catalogue with a
 * param is copied, or this test names it). A setting that only goes with another gets that
 * one too ({@link #COMPANIONS}).
 */
class TransformersTest {
  private static final String REQUIRED =
      "input.path = in\nmodel.weights = w.safetensors\nmodel.heads = 4\noutput.path = out\n";
  /** What a setting is refused without: quantize-ranges is int8's and uint8's only. */
  private static final Map<String, String> COMPANIONS = Map.of(
      Settings.QUANTIZE_RANGES.key(), Settings.QUANTIZE.key() + " = int8");

  /** The job a setting is read in when token vectors do not take it: late chunking's, text. */
  private static final String TEXT = "input { path = in, text-column = text }\nmodel.path = \""
      + io.corpus.encoder.testing.SharedModels.miniLm() + "\"\noutput.path = out\n";
  private static final Map<String, String> BASES = Map.of(
      Settings.LATE_CHUNKING.key(), TEXT,
      Settings.CHUNK_TOKENS.key(), TEXT + "input.late-chunking = tokens\n");

  @Test
  void everySettingThatMirrorsAParamReachesTheJobsTransformer() {
    List<Setting<?>> copied = Settings.withParams()
        .filter(s -> !s.isResolvedByJob()).toList();
    assertTrue(copied.size() >= 20, "settings copied: " + copied.size());
    for (Setting<?> setting : copied) {
      Object value = otherThanDefault(setting);
      JobSettings s = SettingsParser.parse(ConfigFactory.parseString(
          BASES.getOrDefault(setting.key(), REQUIRED)
          + COMPANIONS.getOrDefault(setting.key(), ""))
          .withValue(setting.key(), ConfigValueFactory.fromAnyRef(value)), null);
      EncoderTransformer t = Transformers.fromSettings(s);
      Object got = t.getOrDefault(t.getParam(setting.param()));
      if (got instanceof int[] ints) {
        got = Arrays.stream(ints).boxed().toList();
      } else if (got instanceof String[] strings) {
        got = List.of(strings);
      }
      assertEquals(value, got, setting.key() + " reaches param " + setting.param());
    }
  }

  /** A valid value of the setting other than its default. */
  private static Object otherThanDefault(Setting<?> setting) {
    Object d = setting.defaultValue();
    return switch (setting.type()) {
      case BOOLEAN -> !(Boolean) d;
      case INT -> (Integer) d + 1;
      case DOUBLE -> (Double) d / 2;
      case INT_LIST -> List.of(1);
      case STRING_LIST -> List.of("a");
      case STRING -> setting.choices().isEmpty() ? d + "x"
          : setting.choices().stream().filter(c -> !c.equals(d)).findFirst().orElseThrow();
    };
  }
}
