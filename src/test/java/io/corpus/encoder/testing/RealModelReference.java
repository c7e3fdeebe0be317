package io.corpus.encoder.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What a reference implementation gives for a real model folder on some texts: the token ids,
 * the last hidden states and the sentence vectors, with the tolerances of
 * {@code ../shared/models/README.md}: the same ids, ‖Δ‖/‖ref‖ ≤ 1e-4 and max |Δ| ≤ 1e-3 for the
 * hidden states, the reference's norm (1 where it is normalized) and cosine ≥ 1 − 1e-6 for the
 * sentence vectors.
 *
 * @param folder the model folder
 * @param rows by id, in the reference's order
 */
public record RealModelReference(Path folder, Map<String, Expected> rows) {
  public static final double RELATIVE = 1e-4;
  public static final double ABSOLUTE = 1e-3;
  public static final double COSINE = 1 - 1e-6;

  /**
   * One text's reference.
   *
   * @param ids (T) token ids
   * @param hidden (T, E) last hidden states
   * @param sentence (E) the sentence vector
   */
  public record Expected(String id, String text, int[] ids, double[][] hidden, double[] sentence) {}

  /** The worst errors over the rows checked. */
  public record Errors(double relative, double absolute, double cosineGap) {
    @Override
    public String toString() {
      return String.format("hidden states worst relative %.2e, absolute %.2e; sentence vectors "
          + "worst cosine 1 - %.2e", relative, absolute, cosineGap);
    }
  }

  /** all-MiniLM-L6-v2's 30 reference texts (ONNX Runtime, transformers.js's tokenizer). */
  public static RealModelReference miniLm(SparkSession spark) {
    Path folder = SharedModels.miniLm();
    Map<String, Expected> rows = new LinkedHashMap<>();
    for (Row r : spark.read().parquet(folder.resolve("expected/expected.parquet").toString())
        .orderBy("id").collectAsList()) {
      List<Integer> ids = r.getList(r.fieldIndex("input_ids"));
      rows.put(r.getAs("id"), new Expected(r.getAs("id"), r.getAs("text"),
          ids.stream().mapToInt(Integer::intValue).toArray(),
          SparkInputs.matrix(r.getAs("last_hidden_state")),
          SparkInputs.vector(r.getAs("sentence_embedding"))));
    }
    return new RealModelReference(folder, rows);
  }

  /**
   * A reference written as JSON, [{id, text, input_ids, last_hidden_state, sentence_embedding}]
   * (jobs/samples/make_bert_cases.py), for the model folder beside it.
   */
  public static RealModelReference fromJson(Path folder, Path json) throws IOException {
    Map<String, Expected> rows = new LinkedHashMap<>();
    for (JsonNode r : new ObjectMapper().readTree(json.toFile())) {
      JsonNode hidden = r.get("last_hidden_state");
      double[][] h = new double[hidden.size()][];
      for (int t = 0; t < h.length; t++) {
        h[t] = doubles(hidden.get(t));
      }
      JsonNode ids = r.get("input_ids");
      int[] idArray = new int[ids.size()];
      for (int t = 0; t < idArray.length; t++) {
        idArray[t] = ids.get(t).asInt();
      }
      rows.put(r.get("id").asText(), new Expected(r.get("id").asText(), r.get("text").asText(),
          idArray, h, doubles(r.get("sentence_embedding"))));
    }
    return new RealModelReference(folder, rows);
  }

  private static double[] doubles(JsonNode values) {
    double[] out = new double[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values.get(i).asDouble();
    }
    return out;
  }

  /**
   * Asserts that the encoder's output rows (column id) match: the ids in {@code idsColumn}, the
   * hidden states in {@code embeddingsColumn} (either may be null: not checked) and the sentence
   * vectors in {@code pooledColumn}, every reference row present once. Returns the worst errors.
   */
  public Errors assertMatches(List<Row> output, String idsColumn, String embeddingsColumn,
      String pooledColumn) {
    if (idsColumn != null) {
      assertIds(output, idsColumn);
    }
    assertEquals(rows.size(), output.size(), "one output row per reference text");
    double worstRelative = 0;
    double worstAbsolute = 0;
    double worstGap = 0;
    for (Row row : output) {
      String id = String.valueOf((Object) row.getAs("id"));
      Expected e = rows.get(id);
      assertNotNull(e, "no reference for output row " + id);
      if (embeddingsColumn != null) {
        double[][] hidden = SparkInputs.matrix(row.getAs(embeddingsColumn));
        assertEquals(e.hidden().length, hidden.length, "tokens of " + id);
        double diff = 0;
        double norm = 0;
        for (int t = 0; t < hidden.length; t++) {
          for (int i = 0; i < hidden[t].length; i++) {
            double d = hidden[t][i] - e.hidden()[t][i];
            diff += d * d;
            norm += e.hidden()[t][i] * e.hidden()[t][i];
            worstAbsolute = Math.max(worstAbsolute, Math.abs(d));
          }
        }
        worstRelative = Math.max(worstRelative, Math.sqrt(diff / norm));
      }
      double[] pooled = SparkInputs.vector(row.getAs(pooledColumn));
      double dot = 0;
      double length = 0;
      double referenceLength = 0;
      for (int i = 0; i < pooled.length; i++) {
        dot += pooled[i] * e.sentence()[i];
        length += pooled[i] * pooled[i];
        referenceLength += e.sentence()[i] * e.sentence()[i];
      }
      assertEquals(Math.sqrt(referenceLength), Math.sqrt(length),
          1e-5 * Math.max(1, Math.sqrt(referenceLength)), "norm of the sentence vector of " + id);
      worstGap = Math.max(worstGap, 1 - dot / Math.sqrt(length * referenceLength));
    }
    Errors errors = new Errors(worstRelative, worstAbsolute, worstGap);
    System.out.println(folder.getFileName() + ", " + rows.size() + " texts: "
        + (embeddingsColumn == null ? String.format("sentence vectors worst cosine 1 - %.2e "
            + "(hidden states not compared)", worstGap) : errors));
    assertTrue(worstRelative <= RELATIVE, "relative error " + worstRelative);
    assertTrue(worstAbsolute <= ABSOLUTE, "absolute error " + worstAbsolute);
    assertTrue(1 - worstGap >= COSINE, "cosine 1 - " + worstGap);
    return errors;
  }

  /** Asserts that every reference row is in {@code output} once, with its token ids. */
  public void assertIds(List<Row> output, String idsColumn) {
    assertEquals(rows.size(), output.size(), "one output row per reference text");
    for (Row row : output) {
      String id = String.valueOf((Object) row.getAs("id"));
      Expected e = rows.get(id);
      assertNotNull(e, "no reference for output row " + id);
      List<Integer> ids = row.getList(row.fieldIndex(idsColumn));
      assertArrayEquals(e.ids(), ids.stream().mapToInt(Integer::intValue).toArray(),
          "token ids of " + id);
    }
  }

  /**
   * The largest 1 − cosine between a row's sentence vector in {@code pooledColumn} and its
   * reference, every reference row present once: for a reduced precision, whose vectors are held
   * to a tolerance of their own.
   */
  public double worstSentenceCosineGap(List<Row> output, String pooledColumn) {
    assertEquals(rows.size(), output.size(), "one output row per reference text");
    double worst = 0;
    for (Row row : output) {
      String id = String.valueOf((Object) row.getAs("id"));
      Expected e = rows.get(id);
      assertNotNull(e, "no reference for output row " + id);
      worst = Math.max(worst, 1 - Tolerances.cosine(e.sentence(),
          SparkInputs.vector(row.getAs(pooledColumn))));
    }
    return worst;
  }

  /** The texts as (id, text) pairs, for writing an input table. */
  public List<String[]> texts() {
    List<String[]> out = new ArrayList<>();
    rows.values().forEach(e -> out.add(new String[] {e.id(), e.text()}));
    return out;
  }
}
