package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.typesafe.config.ConfigFactory;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.config.SettingsParser;
import io.corpus.encoder.pipeline.LoadedModel;
import io.corpus.encoder.testing.SharedModels;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

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
}
