package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.testing.FolderCopies;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * sentence_bert_config.json's do_lower_case: texts lowered as Python's str.lower() lowers them
 * (src/test/resources/lowercase-cases/texts.json holds each text and what Python made of it:
 * Turkish dotted capitals, Greek final sigma, titlecase digraphs) before a cased tokenizer reads
 * them; offsets written stay offsets into the text as given.
 */
class LowercaseTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  @Test
  void textsAreLoweredAsPythonLowersThem() throws Exception {
    SparkSession spark = SparkTestSession.get();
    JsonNode texts = JSON.readTree(Path.of("src/test/resources/lowercase-cases/texts.json")
        .toFile());
    Path given = parquet(spark, texts, "text", "given.parquet");
    Path lowered = parquet(spark, texts, "lower", "lowered.parquet");
    Path lowering = folder(true);
    Path plain = folder(false);
    Map<String, Row> byTheJob = run(given, lowering, "by-the-job", "");
    Map<String, Row> byPython = run(lowered, plain, "by-python", "");
    Map<String, Row> notLowered = run(given, plain, "not-lowered", "");
    for (JsonNode t : texts) {
      String id = t.get("id").asText();
      assertEquals(byPython.get(id).getList(byPython.get(id).fieldIndex("input_ids")),
          byTheJob.get(id).getList(byTheJob.get(id).fieldIndex("input_ids")), id);
      double cosine = Tolerances.cosine(SparkInputs.vector(byPython.get(id).getAs("pooled")),
          SparkInputs.vector(byTheJob.get(id).getAs("pooled")));
      assertTrue(1 - cosine <= 1e-6, id + ": 1 - cosine " + (1 - cosine));
      if (!t.get("text").asText().equals(t.get("lower").asText())) {
        assertNotEquals(notLowered.get(id).getList(notLowered.get(id).fieldIndex("input_ids")),
            byTheJob.get(id).getList(byTheJob.get(id).fieldIndex("input_ids")), id);
      }
    }
    // Windows of a text whose İ lowers to two code points: offsets into the text as given.
    Map<String, Row> windows = run(given, lowering, "windows",
        "input { max-tokens = 8, on-too-long = chunk }");
    String turkish = texts.get(0).get("text").asText();
    int end = 0;
    for (Row r : windows.values()) {
      if (r.getAs("id").equals("turkish")) {
        end = Math.max(end, r.<Integer>getAs("chunk_end"));
      }
    }
    assertEquals(turkish.codePointCount(0, turkish.length()), end,
        "the last window ends where the text as given ends");
  }

  private Map<String, Row> run(Path input, Path model, String name, String extra)
      throws Exception {
    Path out = tmp.resolve(name);
    JobRunner.Result run = JobRunner.run(tmp, "input { path = \"" + input
        + "\", text-column = text }", "model.path = \"" + model + "\"", "output { path = \""
        + out + "\", token-embeddings = false }", extra);
    assertEquals(0, run.code(), run.error());
    Map<String, Row> rows = new java.util.HashMap<>();
    for (Row r : SparkTestSession.get().read().parquet(out.resolve("embeddings").toString())
        .collectAsList()) {
      rows.put(r.getAs("id") + (r.schema().getFieldIndex("chunk").isDefined()
          ? "#" + r.getAs("chunk") : ""), r);
    }
    return rows;
  }

  private Path parquet(SparkSession spark, JsonNode texts, String field, String name) {
    List<Row> rows = new ArrayList<>();
    for (JsonNode t : texts) {
      rows.add(RowFactory.create(t.get("id").asText(), t.get(field).asText()));
    }
    Path path = tmp.resolve(name);
    spark.createDataFrame(rows, new StructType().add("id", DataTypes.StringType)
        .add("text", DataTypes.StringType)).coalesce(1).write().parquet(path.toString());
    return path;
  }

  /** The ModernBERT embedding case (a cased byte-level BPE), do_lower_case as given. */
  private Path folder(boolean lowerCase) throws Exception {
    Path from = Path.of("src/test/resources/modernbert-cases/modernbert-embedding")
        .toAbsolutePath();
    Path to = FolderCopies.copy(from, tmp.resolve("modernbert-" + lowerCase));
    Files.writeString(to.resolve("sentence_bert_config.json"), "{\"max_seq_length\": 40, "
        + "\"do_lower_case\": " + lowerCase + "}");
    return to;
  }
}
