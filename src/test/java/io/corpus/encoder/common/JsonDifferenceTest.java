package io.corpus.encoder.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonDifferenceTest {
  @Test
  void namesTheFirstDifferingKeyWithBothValues() {
    assertEquals("output.normalize = true (this run: false)", JsonDifference.first(
        JsonDifference.of(Map.of("output", Map.of("normalize", true))),
        JsonDifference.of(Map.of("output", Map.of("normalize", false)))));
    assertEquals("output.dimensions = 64 (this run: 0)", JsonDifference.first(
        JsonDifference.of(Map.of("reuse_key", Map.of("settings", Map.of("output.dimensions", 64)))),
        JsonDifference.of(Map.of("reuse_key", Map.of("settings", Map.of("output.dimensions", 0))))),
        "a setting's key is shown alone");
    assertNull(JsonDifference.first(JsonDifference.of(Map.of("a", 1)),
        JsonDifference.of(Map.of("a", 1))));
  }

  @Test
  void aLongValueIsShownWhereItDiffers() {
    String base = "/data/corpus/".repeat(20);
    List<Map<String, Object>> before = List.of(Map.of("path", base + "a.parquet"));
    List<Map<String, Object>> after = List.of(Map.of("path", base + "a.parquet"),
        Map.of("path", base + "b.parquet"));
    String difference = JsonDifference.first(JsonDifference.of(Map.of("input_files", before)),
        JsonDifference.of(Map.of("input_files", after)));
    assertTrue(difference.contains("b.parquet"), difference);
    assertTrue(difference.length() < 400, difference);
    String shortFirst = JsonDifference.first(JsonDifference.of(Map.of("k", base + "x")),
        JsonDifference.of(Map.of("k", base + "y")));
    assertTrue(shortFirst.contains("/x\"") && shortFirst.contains("/y\""), shortFirst);
  }
}
