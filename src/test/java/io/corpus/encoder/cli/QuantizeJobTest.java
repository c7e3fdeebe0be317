package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.model.Quantization;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkTestSession;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code output.quantize} on the real all-MiniLM-L6-v2 over the sample's first 120 glosses: each
 * row's quantized vector equals {@link Quantization} (itself equal to a numpy port of
 * sentence-transformers' quantize_embeddings, {@code QuantizationTest}) applied to the float
 * vector a plain run of the same job wrote, integer for integer; int8 and uint8 with ranges
 * taken over every row (written to run-summary.json), binary and ubinary from the signs. An
 * earlier run's summary given as {@code output.quantize-ranges} quantizes other texts alike, and
 * an update reuses the earlier output's ranges.
 */
class QuantizeJobTest {
  private static final Path TEXTS = Path.of(System.getProperty("user.dir"),
      "data-samples/texts.parquet");

  @TempDir
  Path tmp;

  @Test
  void everyQuantizationEqualsTheFloatRunsVectorsQuantized() throws Exception {
    SparkSession spark = SparkTestSession.get();
    Path input = tmp.resolve("texts.parquet");
    spark.read().parquet(TEXTS.toString()).orderBy("id").limit(120).coalesce(2).write()
        .parquet(input.toString());
    Map<String, float[]> floats = floats(run(input, "floats", "none", ""));
    Quantization.Ranges ranges = rangesOf(floats);

    for (Quantization q : new Quantization[] {Quantization.INT8, Quantization.UINT8,
        Quantization.BINARY, Quantization.UBINARY}) {
      Path out = run(input, q.configName(), q.configName(), "");
      JsonNode summary = summary(out);
      assertEquals(q.configName(), summary.path("outputs").path("quantize").asText());
      if (q.ranged()) {
        assertEquals(ranges, read(summary.path("outputs").path("quantize_ranges")),
            q + ": the ranges are each dimension's min and max over every row");
      }
      Map<String, int[]> got = quantized(out);
      assertEquals(floats.size(), got.size());
      for (Map.Entry<String, float[]> e : floats.entrySet()) {
        assertArrayEquals(q.apply(e.getValue(), ranges), got.get(e.getKey()),
            q + " row " + e.getKey());
      }
      System.out.printf("quantize %s: %d rows equal the float run's vectors quantized%n", q,
          got.size());
    }

    // other texts with the first run's ranges; the same texts give the calibrated run's values
    Path queries = tmp.resolve("queries.parquet");
    spark.read().parquet(TEXTS.toString()).orderBy("id").offset(120).limit(40).coalesce(1)
        .write().parquet(queries.toString());
    Path calibrated = tmp.resolve("int8");
    String given = "output.quantize-ranges = \"" + calibrated.resolve("run-summary.json")
        + "\"";
    Map<String, float[]> queryFloats = floats(run(queries, "query-floats", "none", ""));
    Map<String, int[]> later = quantized(run(queries, "queries-int8", "int8", given));
    for (Map.Entry<String, float[]> e : queryFloats.entrySet()) {
      assertArrayEquals(Quantization.INT8.apply(e.getValue(), ranges), later.get(e.getKey()),
          "query " + e.getKey());
    }
    assertEquals(quantizedAsLists(calibrated), quantizedAsLists(run(input, "again", "int8",
        given)));
  }

  /**
   * An update keeps the earlier rows' codes byte for byte and quantizes its new rows with the
   * earlier ranges. The new rows are encoded in other batches than the plain run's that gives
   * their float vectors, and a float32 product depends on the rows beside it (OpenBLAS's
   * blocking, per processor and kernel set): a value on a rounding boundary may land one code
   * away, so each code is held to one step, and most to none.
   */
  @Test
  void anUpdateQuantizesItsNewRowsWithTheEarlierRanges() throws Exception {
    SparkSession spark = SparkTestSession.get();
    Path first = tmp.resolve("first.parquet");
    spark.read().parquet(TEXTS.toString()).orderBy("id").limit(60).coalesce(1).write()
        .parquet(first.toString());
    Path out = run(first, "updated", "uint8", "");
    Quantization.Ranges ranges = read(summary(out).path("outputs").path("quantize_ranges"));
    Map<String, int[]> earlier = quantized(out);
    Path second = tmp.resolve("second.parquet");
    spark.read().parquet(TEXTS.toString()).orderBy("id").limit(80).coalesce(1).write()
        .parquet(second.toString());
    Map<String, float[]> floats = floats(run(second, "second-floats", "none", ""));
    runIn(second, out, "uint8", "output.mode = update");
    JsonNode summary = summary(out);
    assertEquals(20, summary.path("update").path("rows_encoded").asLong(), summary.toString());
    assertEquals(ranges, read(summary.path("outputs").path("quantize_ranges")));
    Map<String, int[]> got = quantized(out);
    int codes = 0;
    int offByOne = 0;
    for (Map.Entry<String, float[]> e : floats.entrySet()) {
      if (earlier.containsKey(e.getKey())) {
        assertArrayEquals(earlier.get(e.getKey()), got.get(e.getKey()), "reused " + e.getKey());
        continue;
      }
      int[] want = Quantization.UINT8.apply(e.getValue(), ranges);
      for (int i = 0; i < want.length; i++) {
        int step = Math.abs(want[i] - got.get(e.getKey())[i]);
        assertTrue(step <= 1, "row " + e.getKey() + " value " + i + ": " + got.get(e.getKey())[i]
            + " where " + want[i] + " is");
        offByOne += step;
        codes++;
      }
    }
    assertEquals(20 * 384, codes);
    assertTrue(offByOne <= codes / 100, offByOne + " of " + codes + " codes a step away");
  }

  @Test
  void quantizingNothingOrRangesWhereNoneGoAreRefused() throws Exception {
    assertTrue(refusal("output { quantize = int8, pooling = none }").contains(
        "output.quantize = int8 quantizes the pooled vector, and output.pooling = none writes "
            + "none"));
    assertTrue(refusal("output { quantize = binary, quantize-ranges = \"x.json\" }").contains(
        "output.quantize-ranges gives int8 and uint8 their ranges; output.quantize = binary "
            + "takes none"));
    Path bad = tmp.resolve("bad.json");
    Files.writeString(bad, "[[0.1, 0.2], [0.3]]");
    assertTrue(refusal("output { quantize = uint8, quantize-ranges = \"" + bad + "\" }")
        .contains("holds no [[min, ...], [max, ...]] of equal lengths"));
    // what --check once passed and the job refused after Spark started
    Path narrow = tmp.resolve("narrow.json");
    Files.writeString(narrow, "[[-0.1, -0.2], [0.3, 0.4]]");
    assertTrue(refusal("output { quantize = int8, quantize-ranges = \"" + narrow + "\" }")
        .contains("has ranges of 2 values, and the pooled vector has 384"));
    assertTrue(refusal("output { quantize = int8, quantize-ranges = \"" + tmp.resolve("none.json")
        + "\" }").contains("none.json cannot be read"));
    Path nan = tmp.resolve("nan.json");
    Files.writeString(nan, "[[NaN, 0.1],\n [0.3, 0.4]]");
    assertTrue(refusal("output { quantize = int8, quantize-ranges = \"" + nan + "\" }")
        .contains("nan.json is not valid JSON at line 1, column "));
  }

  /**
   * An update of an int8 output that has no ranges (every row of it was rejected) is refused
   * naming why, not a setting the config never set.
   */
  @Test
  void anUpdateOfAnOutputWithoutRangesSaysWhy() throws Exception {
    Path none = tmp.resolve("all-rejected.parquet");
    SparkTestSession.get().sql("SELECT 'a' AS id, CAST(NULL AS STRING) AS text").coalesce(1)
        .write().parquet(none.toString());
    Path out = run(none, "rejected-int8", "int8", "");
    Path config = tmp.resolve("update-none.conf");
    Files.writeString(config, String.join("\n", List.of("input.path = \"" + none + "\"",
        "input.text-column = text", "model.path = \"" + SharedModels.miniLm() + "\"",
        "output.path = \"" + out + "\"", "output.token-embeddings = false",
        "output.quantize = int8", "output.mode = update", "execution.progress = false")) + "\n");
    String expected = "error: output.mode = update with output.quantize = int8 quantizes new "
        + "rows with the earlier output's ranges, and the earlier output at " + out + " has none "
        + "(it wrote no vector to calibrate them on); set output.quantize-ranges, or run with "
        + "output.mode = overwrite";
    assertEquals(expected, JobRunner.runConfig(config).error());
    assertEquals(expected, JobRunner.runConfig(config, "--check").error());
  }

  /** The job's refusal in one line, which --check gives too. */
  private String refusal(String more) throws IOException {
    Path config = tmp.resolve("refused-" + System.nanoTime() + ".conf");
    Files.writeString(config, String.join("\n", List.of("input.path = \"" + TEXTS + "\"",
        "input.text-column = text", "model.path = \"" + SharedModels.miniLm() + "\"",
        "output.path = \"" + tmp.resolve("refused") + "\"", "execution.progress = false",
        more)) + "\n");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = new EncodeCommand(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString()});
    String said = err.toString(StandardCharsets.UTF_8);
    assertTrue(exit != 0, said);
    assertTrue(!said.strip().contains("\n"), "one line: " + said);
    JobRunner.Result checked = JobRunner.runConfig(config, "--check");
    assertEquals(said.strip(), checked.error(), "--check refuses as the job does");
    return said;
  }

  private Path run(Path input, String name, String quantize, String more) throws IOException {
    Path out = tmp.resolve(name);
    runIn(input, out, quantize, more);
    return out;
  }

  private void runIn(Path input, Path out, String quantize, String more) throws IOException {
    Path config = tmp.resolve(out.getFileName() + "-" + System.nanoTime() + ".conf");
    Files.writeString(config, String.join("\n", List.of("input.path = \"" + input + "\"",
        "input.text-column = text", "model.path = \"" + SharedModels.miniLm() + "\"",
        "output.path = \"" + out + "\"", "output.token-embeddings = false",
        "output.quantize = " + quantize, "execution.progress = false", more)) + "\n");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = new EncodeCommand(new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err)).run(new String[] {"--config", config.toString()});
    assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
  }

  private static JsonNode summary(Path out) throws IOException {
    return new ObjectMapper().readTree(out.resolve("run-summary.json").toFile());
  }

  private static Quantization.Ranges read(JsonNode ranges) {
    float[][] rows = new float[2][ranges.get(0).size()];
    for (int r = 0; r < 2; r++) {
      for (int i = 0; i < rows[r].length; i++) {
        rows[r][i] = (float) ranges.get(r).get(i).asDouble();
      }
    }
    return new Quantization.Ranges(rows[0], rows[1]);
  }

  private static Quantization.Ranges rangesOf(Map<String, float[]> vectors) {
    int d = vectors.values().iterator().next().length;
    float[] low = new float[d];
    float[] high = new float[d];
    java.util.Arrays.fill(low, Float.POSITIVE_INFINITY);
    java.util.Arrays.fill(high, Float.NEGATIVE_INFINITY);
    for (float[] v : vectors.values()) {
      for (int i = 0; i < d; i++) {
        low[i] = Math.min(low[i], v[i]);
        high[i] = Math.max(high[i], v[i]);
      }
    }
    return new Quantization.Ranges(low, high);
  }

  private static Map<String, float[]> floats(Path out) {
    Map<String, float[]> rows = new HashMap<>();
    for (Row r : SparkTestSession.get().read().parquet(out.resolve("embeddings").toString())
        .collectAsList()) {
      List<Float> values = r.getList(r.fieldIndex("pooled"));
      float[] v = new float[values.size()];
      for (int i = 0; i < v.length; i++) {
        v[i] = values.get(i);
      }
      rows.put(r.getAs("id").toString(), v);
    }
    return rows;
  }

  private static Map<String, int[]> quantized(Path out) {
    Map<String, int[]> rows = new HashMap<>();
    for (Row r : SparkTestSession.get().read().parquet(out.resolve("embeddings").toString())
        .collectAsList()) {
      List<Number> values = r.getList(r.fieldIndex("pooled"));
      int[] v = new int[values.size()];
      for (int i = 0; i < v.length; i++) {
        v[i] = values.get(i).intValue();
      }
      rows.put(r.getAs("id").toString(), v);
    }
    return rows;
  }

  private static Map<String, List<Integer>> quantizedAsLists(Path out) {
    Map<String, List<Integer>> rows = new HashMap<>();
    quantized(out).forEach((k, v) -> rows.put(k, java.util.Arrays.stream(v).boxed().toList()));
    return rows;
  }
}
