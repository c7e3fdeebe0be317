package io.corpus.encoder.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * Late chunking against the float64 references of src/test/resources/late-chunking (made by
 * jobs/samples/make_late_chunking_cases.py: jina-ai/late-chunking's macro-windows and span means
 * on a port of each model): the real all-MiniLM-L6-v2 (BERT, learned positions) and a random
 * ModernBERT folder (BF16, sliding-window layers), documents of one window and of many, spans
 * of tokens and of sentences, batches smaller than a document so that its windows are encoded
 * in several.
 */
class LateChunkingTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final StructType TEXTS = new StructType()
      .add("id", DataTypes.StringType).add("text", DataTypes.StringType);

  /**
   * Every chunk's index, offsets and span ids equal the reference's, and its vector is within
   * 2e-5 of it in every value.
   */
  @Test
  void chunkVectorsEqualTheMeansOfTheWholeDocumentsStates() throws Exception {
    for (String name : List.of("minilm", "modernbert")) {
      JsonNode c = JSON.readTree(new File("src/test/resources/late-chunking/" + name + ".json"));
      Dataset<Row> texts = texts(c);
      double worst = 0;
      int chunks = 0;
      for (JsonNode want : c.get("cases")) {
        String rule = want.get("rule").asText();
        int chunkTokens = want.get("chunk_tokens").asInt();
        Map<String, Row> got = byChunk(transformer(c, rule, chunkTokens).transform(texts)
            .where("id = '" + want.get("id").asText() + "'").collectAsList());
        String where = name + " " + want.get("id").asText() + " " + rule;
        assertEquals(want.get("chunks").size(), got.size(), where + ": chunks");
        for (JsonNode chunk : want.get("chunks")) {
          Row row = got.get(want.get("id").asText() + "#" + chunk.get("chunk").asInt());
          String at = where + " chunk " + chunk.get("chunk").asInt();
          assertEquals(chunk.get("start").asInt(), row.<Integer>getAs("chunk_start"), at);
          assertEquals(chunk.get("end").asInt(), row.<Integer>getAs("chunk_end"), at);
          assertEquals(ints(chunk.get("ids")), row.getList(row.fieldIndex("input_ids")), at);
          double[] vector = SparkInputs.vector(row.getAs("pooled"));
          for (int i = 0; i < vector.length; i++) {
            worst = Math.max(worst, Math.abs(vector[i] - chunk.get("vector").get(i).asDouble()));
          }
          chunks++;
        }
      }
      System.out.printf("late chunking, %s: %d chunks, worst |Δ| %.2e%n", name, chunks, worst);
      assertTrue(worst < 2e-5, name + ": worst |Δ| " + worst);
    }
  }

  /**
   * A prompt goes before the text and into the first chunk: the chunks' offsets stay those of
   * the text given, and the first chunk's ids are [CLS], the prompt's, then the text's.
   */
  @Test
  void aPromptIsPooledWithTheFirstChunkAndMovesNoOffset() throws Exception {
    JsonNode c = JSON.readTree(new File("src/test/resources/late-chunking/minilm.json"));
    Map<String, Row> plain = byChunk(transformer(c, "sentences", 64).transform(texts(c))
        .collectAsList());
    Map<String, Row> prompted = byChunk(transformer(c, "sentences", 64)
        .setPrompt("  search_document: ").transform(texts(c)).collectAsList());
    assertEquals(plain.keySet(), prompted.keySet());
    for (String key : plain.keySet()) {
      Row a = plain.get(key);
      Row b = prompted.get(key);
      assertEquals(a.<Integer>getAs("chunk_start"), b.<Integer>getAs("chunk_start"), key);
      assertEquals(a.<Integer>getAs("chunk_end"), b.<Integer>getAs("chunk_end"), key);
      List<Object> ids = b.getList(b.fieldIndex("input_ids"));
      if (key.endsWith("#0")) {
        // [CLS] search _ document : then the text's (and [SEP])
        List<Object> want = new ArrayList<>(List.of(101, 3945, 1035, 6254, 1024));
        List<Object> text = a.getList(a.fieldIndex("input_ids"));
        want.addAll(text.subList(1, text.size()));
        assertEquals(want, ids, key);
      } else {
        assertEquals(a.getList(a.fieldIndex("input_ids")), ids, key);
      }
    }
  }

  /** A pooling of the first token is refused, naming the pooling. */
  @Test
  void aFolderThatDoesNotPoolTheMeanIsRefused() throws Exception {
    JsonNode c = JSON.readTree(new File("src/test/resources/late-chunking/minilm.json"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> transformer(c, "tokens", 48).setPooling("first").transform(texts(c)));
    assertTrue(e.getMessage().contains("pooling = first"), e.getMessage());
  }

  private static EncoderTransformer transformer(JsonNode c, String rule, int chunkTokens) {
    return new EncoderTransformer().setModelPath(c.get("folder").asText()).setTextCol("text")
        .setMaxTokens(c.get("max_tokens").asInt()).setChunkOverlap(c.get("overlap").asInt())
        .setLateChunking(rule).setChunkTokens(chunkTokens).setOutputCol("")
        .setBatchTokens(3 * c.get("max_tokens").asInt() / 2);
  }

  private static Dataset<Row> texts(JsonNode c) {
    List<Row> rows = new ArrayList<>();
    for (JsonNode t : c.get("texts")) {
      rows.add(RowFactory.create(t.get("id").asText(), t.get("text").asText()));
    }
    SparkSession spark = SparkTestSession.get();
    return spark.createDataFrame(rows, TEXTS);
  }

  private static Map<String, Row> byChunk(List<Row> rows) {
    Map<String, Row> out = new HashMap<>();
    for (Row row : rows) {
      out.put(row.<String>getAs("id") + "#" + row.<Integer>getAs("chunk"), row);
    }
    return out;
  }

  private static List<Integer> ints(JsonNode values) {
    List<Integer> out = new ArrayList<>();
    values.forEach(v -> out.add(v.asInt()));
    return out;
  }
}
