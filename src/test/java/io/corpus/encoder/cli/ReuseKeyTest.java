package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import io.corpus.encoder.config.FakeSettings;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.config.Setting;
import io.corpus.encoder.config.Settings;
import io.corpus.encoder.config.SettingsParser;
import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.pipeline.LoadedModel;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.weights.ModelFingerprint;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reuse key, which an update must find in the earlier output's summary and a resumed run in
 * the plan of the pieces it takes over, changes with every setting that shapes a row of
 * embeddings/: the columns rows are read from, and the head statistics they carry.
 */
class ReuseKeyTest {
  private static final String MODEL = "model.path = \"" + SharedModels.miniLm() + "\"\n"
      + "output.path = out\ninput.path = in\n";

  private static JobSettings settings(String lines) {
    return SettingsParser.parse(ConfigFactory.parseString(MODEL + lines), null);
  }

  @Test
  void everyColumnARowIsReadFromAndTheHeadStatisticsAreInTheKey() {
    JobSettings text = settings("input.text-column = text");
    LoadedModel model = EncodeJob.loadModel(text);
    Map<String, String[]> changes = new LinkedHashMap<>();
    changes.put("text column", new String[] {"input.text-column = text",
        "input.text-column = body"});
    changes.put("pair columns", new String[] {"input.text-pair-columns = [q, a]",
        "input.text-pair-columns = [q, b]"});
    changes.put("ids column", new String[] {"input.ids-column = ids",
        "input.ids-column = other_ids"});
    changes.put("type ids column", new String[] {
        "input.ids-column = ids\ninput.type-ids-column = types",
        "input.ids-column = ids\ninput.type-ids-column = segments"});
    changes.put("mask column", new String[] {"input.ids-column = ids\ninput.mask-column = m",
        "input.ids-column = ids\ninput.mask-column = mask"});
    changes.put("attention statistics", new String[] {"input.text-column = text",
        "input.text-column = text\noutput.attention.stats = true"});
    for (Map.Entry<String, String[]> c : changes.entrySet()) {
      Map<String, Object> before = UpdatePlan.reuseKey(settings(c.getValue()[0]), model);
      assertEquals(before, UpdatePlan.reuseKey(settings(c.getValue()[0]), model), c.getKey());
      assertNotEquals(before, UpdatePlan.reuseKey(settings(c.getValue()[1]), model),
          c.getKey());
    }
  }

  /**
   * A setting marked as shaping rows reaches the run summary's settings and the reuse key from
   * its declaration alone; one not so marked reaches neither.
   */
  @Test
  @SuppressWarnings("unchecked")
  void aSettingMarkedAsShapingRowsIsInTheSummaryAndTheKey() throws Exception {
    JobSettings text = settings("input.text-column = text");
    Setting<String> shaping = FakeSettings.fake("output.fake-shaping", "x", true);
    Setting<String> other = FakeSettings.fake("output.fake-other", "y", false);
    List<Setting<?>> catalogue = new ArrayList<>(FakeSettings.catalogueWith(shaping));
    catalogue.add(other);
    Map<String, Object> used = new LinkedHashMap<>(text.used());
    used.put(shaping.key(), "x");
    used.put(other.key(), "y");
    Map<String, Object> rowShaping = Settings.rowShaping(catalogue, used::get);
    assertEquals(text.rowShaping().size() + 1, rowShaping.size());
    Map<String, Object> key = UpdatePlan.reuseKey("fingerprint", Map.of(), rowShaping);
    Map<String, Object> inKey = (Map<String, Object>) key.get("settings");
    assertEquals("x", inKey.get("output.fake-shaping"));
    assertFalse(inKey.containsKey("output.fake-other"));
    RunSummary summary = new RunSummary(1, 1, 1, 0, 0, 0, Map.of(), 0, null, 1, 1, 1, 1, Map.of(),
        Map.of(), null, "blas", Map.of(), Map.of(), rowShaping, Map.of(), key, null, Map.of());
    JsonNode written = new ObjectMapper().readTree(summary.toJson());
    assertEquals("x", written.get("settings").get("output.fake-shaping").asText());
    assertFalse(written.get("settings").has("output.fake-other"));
    assertEquals("x", written.get("reuse_key").get("settings").get("output.fake-shaping")
        .asText());
  }

  /** The settings as used: auto resolved, the folder's architecture, the job's own values. */
  @Test
  void theSettingsAreAsTheJobUsesThem() {
    Map<String, Object> used = settings("input.text-column = text\noutput.dimensions = 64")
        .rowShaping();
    assertEquals("mean", used.get("output.pooling"));
    assertEquals(true, used.get("output.normalize"));
    assertEquals(64, used.get("output.dimensions"));
    assertEquals(256, used.get("input.max-tokens"));
    assertEquals("gelu", used.get("model.activation"));
    assertEquals(12, used.get("model.heads"));
    assertEquals(1e-12, (Double) used.get("model.layer-norm-eps"), 1e-20);
    assertEquals("text", used.get("input.text-column"));
    assertFalse(used.containsKey("execution.batch-tokens"), "not a setting that shapes rows");
  }

  /** An output written when the reuse key had another form is refused in words, not a diff. */
  @Test
  void anUpdateOfAnOutputWhoseKeyHasTheOldFormIsRefusedInWords(@TempDir Path tmp)
      throws Exception {
    Path out = Files.createDirectories(tmp.resolve("out"));
    Files.createDirectories(out.resolve("embeddings"));
    Files.writeString(out.resolve("run-summary.json"), "{\"rows_read\": 1, \"rows_written\": 1, "
        + "\"rows_rejected\": 0, \"model\": {}, \"outputs\": {}, \"reuse_key\": "
        + "{\"model_fingerprint\": \"f\", \"input\": {\"text_column\": \"text\"}}}");
    JobSettings update = SettingsParser.parse(ConfigFactory.parseString("model.path = \""
        + SharedModels.miniLm() + "\"\ninput.path = in\ninput.text-column = text\n"
        + "output.path = \"" + out + "\"\noutput.mode = update\n"), null);
    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
        () -> UpdatePlan.checkBeforeStart(update, EncodeJob.loadModel(update)));
    assertEquals("output.mode = update: the earlier output at " + out + " was written by a "
        + "version of this job that recorded what its rows depend on in another form (its "
        + "reuse_key has no settings); run once with output.mode = overwrite",
        refused.getMessage());
  }

  /**
   * output.quantize-ranges: a relative path is the config's folder's, as every other path, and
   * what the file holds is in the key (a file rewritten in place gives another key).
   */
  @Test
  void theQuantizeRangesFilesContentIsInTheKeyAndItsPathTheConfigFolders(@TempDir Path tmp)
      throws Exception {
    Path conf = Files.createDirectories(tmp.resolve("conf"));
    Path job = conf.resolve("job.conf");
    Files.writeString(job, MODEL + "input.text-column = text\noutput.quantize = int8\n"
        + "output.quantize-ranges = \"r.json\"\n");
    Files.writeString(conf.resolve("r.json"), ranges(0.2));
    JobSettings settings = SettingsParser.parseFile(job);
    assertEquals(conf.resolve("r.json").toString(), settings.output().quantizeRanges());
    LoadedModel model = EncodeJob.loadModel(settings);
    Map<String, Object> wide = UpdatePlan.reuseKey(settings, model);
    assertEquals(wide, UpdatePlan.reuseKey(settings, model));
    Files.writeString(conf.resolve("r.json"), ranges(0.05));
    assertNotEquals(wide, UpdatePlan.reuseKey(settings, model));
  }

  private static String ranges(double bound) {
    String row = String.join(", ", java.util.Collections.nCopies(384, String.valueOf(bound)));
    return "[[" + row.replace(String.valueOf(bound), String.valueOf(-bound)) + "], [" + row
        + "]]";
  }

  /**
   * A setting whose value came from the environment is in the summary's settings and in the
   * key as the value's digest: another value gives another key, and the value is written nowhere.
   */
  @Test
  void aValueFromTheEnvironmentIsKeyedByItsDigestAndWrittenNowhere() throws Exception {
    String secret = "acme-internal query prefix: ";
    JobSettings given = settings("input.text-column = text\ninput.prompt = \"" + secret + "\"");
    LoadedModel model = EncodeJob.loadModel(given);
    Map<String, Object> keys = new LinkedHashMap<>();
    for (String value : List.of(secret, "another secret: ")) {
      JobSettings s = settings("input.text-column = text\ninput.prompt = \"" + value + "\"");
      JobSettings fromEnvironment = new JobSettings(s.input(), s.weights(), s.model(),
          s.output(), s.execution(), new io.corpus.encoder.config.EnvironmentValues(
              Map.of("input.prompt", value.strip())), s.given(), s.used());
      Map<String, Object> key = UpdatePlan.reuseKey(fromEnvironment, model);
      String written = new ObjectMapper().writeValueAsString(key);
      assertFalse(written.contains(value.strip()), written);
      assertTrue(((String) fromEnvironment.rowShaping().get("input.prompt"))
          .startsWith("<from the environment: sha256 "));
      keys.put(value, key);
    }
    assertNotEquals(keys.get(secret), keys.get("another secret: "));
    assertTrue(new ObjectMapper().writeValueAsString(UpdatePlan.reuseKey(given, model))
        .contains(secret), "a value given in the file is written as it is");
  }

  @Test
  void theFingerprintHashedBesideTheLoadIsTheFoldersAndAFailureIsThrownAsItWas(
      @TempDir Path tmp) throws Exception {
    JobSettings folder = settings("input.text-column = text");
    assertEquals(ModelFingerprint.ofFolder(folder.modelFolder()),
        UpdatePlan.fingerprintBesideTheLoad(folder).get());
    LoadedModel model = EncodeJob.loadModel(folder);
    assertEquals(UpdatePlan.reuseKey(folder, model),
        UpdatePlan.reuseKey(folder, model, UpdatePlan.fingerprintBesideTheLoad(folder).get()));
    Path weights = tmp.resolve("weights.safetensors");
    Files.write(weights, new byte[] {1, 2, 3});
    JobSettings file = SettingsParser.parse(ConfigFactory.parseString("model.weights = \""
        + weights + "\"\nmodel.heads = 2\noutput.path = out\ninput.path = in\n"), null);
    assertEquals(ModelFingerprint.ofFile(weights),
        UpdatePlan.fingerprintBesideTheLoad(file).get());
    Files.delete(weights);
    UncheckedIOException e = assertThrows(UncheckedIOException.class,
        () -> UpdatePlan.fingerprintBesideTheLoad(file).get());
    assertTrue(e.getMessage().contains(weights.getFileName().toString()), e.getMessage());
  }
}
