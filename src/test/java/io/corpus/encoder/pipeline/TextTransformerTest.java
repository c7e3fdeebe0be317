package io.corpus.encoder.pipeline;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.config.Settings;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.RealModelReference;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ML Transformer from a model folder: text and token ids of all-MiniLM-L6-v2's reference
 * texts give the reference vectors; a PipelineModel holding the transformer saves, loads in a new
 * session and gives the same output, for a model folder and for a weights file.
 */
class TextTransformerTest {
  @TempDir
  Path tmp;

  private static Dataset<Row> texts(SparkSession spark, RealModelReference reference) {
    return spark.read().parquet(reference.folder().resolve("expected/texts.parquet").toString())
        .repartition(2);
  }

  @Test
  void textAndIdsColumnsGiveTheReferenceVectors() {
    SparkSession spark = SparkTestSession.get();
    RealModelReference reference = RealModelReference.miniLm(spark);
    EncoderTransformer fromText = new EncoderTransformer()
        .setModelPath(reference.folder().toString()).setTextCol("text");
    reference.assertMatches(fromText.transform(texts(spark, reference)).collectAsList(),
        "input_ids", "embeddings", "pooled");

    Dataset<Row> ids = spark.read()
        .parquet(reference.folder().resolve("expected/expected.parquet").toString())
        .select(col("id"), col("input_ids"));
    EncoderTransformer fromIds = new EncoderTransformer()
        .setModelPath(reference.folder().toString()).setIdsCol("input_ids")
        .setOutputCol("");
    List<Row> rows = fromIds.transform(ids).collectAsList();
    assertEquals(List.of("id", "input_ids", "pooled"), List.of(rows.get(0).schema().fieldNames()));
    reference.assertMatches(rows, "input_ids", null, "pooled");
  }

  /**
   * Ids as a Hugging Face tokenizer pads them ({@code padding=True}: [PAD] = 0 to the longest,
   * with an attention mask): the real tokens' states and the sentence vectors are the reference's,
   * the padding rows zero.
   */
  @Test
  void paddedIdsWithAnAttentionMaskGiveTheReferenceVectors() {
    SparkSession spark = SparkTestSession.get();
    RealModelReference reference = RealModelReference.miniLm(spark);
    int longest = reference.rows().values().stream().mapToInt(e -> e.ids().length).max()
        .orElseThrow();
    List<Row> padded = new java.util.ArrayList<>();
    for (RealModelReference.Expected e : reference.rows().values()) {
      List<Long> ids = new java.util.ArrayList<>();
      List<Integer> mask = new java.util.ArrayList<>();
      for (int t = 0; t < longest; t++) {
        ids.add(t < e.ids().length ? (long) e.ids()[t] : 0L);
        mask.add(t < e.ids().length ? 1 : 0);
      }
      padded.add(org.apache.spark.sql.RowFactory.create(e.id(), ids, mask));
    }
    org.apache.spark.sql.types.StructType schema = new org.apache.spark.sql.types.StructType()
        .add("id", "string").add("input_ids", "array<bigint>").add("attention_mask", "array<int>");
    List<Row> rows = new EncoderTransformer().setModelPath(reference.folder().toString())
        .setIdsCol("input_ids").setMaskCol("attention_mask")
        .transform(spark.createDataFrame(padded, schema)).collectAsList();
    reference.assertMatches(rows, null, null, "pooled");
    for (Row row : rows) {
      RealModelReference.Expected e = reference.rows().get(row.<String>getAs("id"));
      double[][] states = SparkInputs.matrix(row.getAs("embeddings"));
      assertEquals(longest, states.length, "one row per position, padding included");
      for (int t = 0; t < longest; t++) {
        for (int i = 0; i < states[t].length; i++) {
          if (t < e.ids().length) {
            assertEquals(e.hidden()[t][i], states[t][i], 1e-3, e.id() + " token " + t);
          } else {
            assertEquals(0.0, states[t][i], e.id() + " padding at " + t);
          }
        }
      }
    }
  }

  /** What the job's file may not combine, the Transformer's params may not either. */
  @Test
  void paramsTheJobWouldRefuseAreRefusedBeforeAnyRowIsRead() {
    SparkSession spark = SparkTestSession.get();
    RealModelReference reference = RealModelReference.miniLm(spark);
    StructType schema = texts(spark, reference).schema();
    Map<String, EncoderTransformer> refused = new java.util.LinkedHashMap<>();
    refused.put("maxLength applies to inputCol; for token ids and text set maxTokens",
        new EncoderTransformer().setMaxLength(64));
    refused.put("chunkTokens goes with lateChunking (tokens or sentences)",
        new EncoderTransformer().setChunkTokens(128));
    refused.put("Set attentionIds or attentionSample, not both (ids [a], sample 0.5)",
        new EncoderTransformer().setAttentionCol("attention").setAttentionIds(new String[] {"a"})
            .setAttentionSample(0.5));
    refused.forEach((message, t) -> {
      t.setModelPath(reference.folder().toString()).setTextCol("text");
      Exception e = assertThrows(IllegalArgumentException.class, () -> t.transformSchema(schema));
      assertEquals(message, e.getMessage());
    });
  }

  @Test
  void architectureParamsThatContradictTheFolderAreRefusedNamingBoth() {
    SparkSession spark = SparkTestSession.get();
    RealModelReference reference = RealModelReference.miniLm(spark);
    EncoderTransformer t = new EncoderTransformer()
        .setModelPath(reference.folder().toString()).setTextCol("text").setActivation("relu");
    Exception e = assertThrows(RuntimeException.class,
        () -> t.transform(texts(spark, reference)));
    assertTrue(e.getMessage().startsWith("param activation = relu contradicts "
        + reference.folder().resolve("config.json") + ": its hidden_act is activation gelu"),
        e.getMessage());
    EncoderTransformer causal = new EncoderTransformer()
        .setModelPath(reference.folder().toString()).setTextCol("text").setCausal(true);
    e = assertThrows(RuntimeException.class, () -> causal.transform(texts(spark, reference)));
    assertTrue(e.getMessage().startsWith("param causal = true contradicts "
        + reference.folder().resolve("config.json") + ": model_type = bert, whose queries see "
        + "the keys after them too, as it was trained"), e.getMessage());
    EncoderTransformer both = new EncoderTransformer()
        .setModelPath(reference.folder().toString()).setTextCol("text").setInputCol("x");
    e = assertThrows(IllegalArgumentException.class,
        () -> both.transformSchema(texts(spark, reference).schema()));
    assertEquals("Set exactly one of inputCol (token vectors), idsCol (token ids) and textCol "
        + "(text); got inputCol, textCol", e.getMessage());
  }

  @Test
  void pipelineModelsSaveAndLoadInANewSessionWithTheSameOutput() throws Exception {
    SparkSession spark = SparkTestSession.get();
    RealModelReference reference = RealModelReference.miniLm(spark);
    Dataset<Row> input = texts(spark, reference);
    PipelineModel text = new Pipeline().setStages(new PipelineStage[] {new EncoderTransformer()
        .setModelPath(reference.folder().toString()).setTextCol("text").setMaxTokens(128)
        .setStatsCol("stats")}).fit(input);
    GoldenCase c = GoldenCase.named("padded-prenorm-gelu");
    Dataset<Row> vectors = SparkInputs.frame(spark, c.inputs(), true);
    PipelineModel weights = new Pipeline().setStages(new PipelineStage[] {
        EncoderTransformerTest.transformerFor(c).setPooling("max").setNormalize("true")})
        .fit(vectors);
    Map<String, Row> textBefore = byId(text.transform(input));
    Map<String, Row> weightsBefore = byId(weights.transform(vectors));
    text.write().save(tmp.resolve("text").toString());
    weights.write().save(tmp.resolve("weights").toString());

    SparkSession fresh = spark.newSession();
    SparkSession.setActiveSession(fresh);
    try {
      PipelineModel textLoaded = PipelineModel.load(tmp.resolve("text").toString());
      EncoderTransformer loaded = (EncoderTransformer) textLoaded.stages()[0];
      assertEquals(128, loaded.intValue(Settings.MAX_TOKENS));
      assertSame(byId(textLoaded.transform(fresh.createDataFrame(input.collectAsList(),
          input.schema()))), textBefore, "text");
      PipelineModel weightsLoaded = PipelineModel.load(tmp.resolve("weights").toString());
      assertSame(byId(weightsLoaded.transform(fresh.createDataFrame(vectors.collectAsList(),
          vectors.schema()))), weightsBefore, "weights");
    } finally {
      SparkSession.setActiveSession(spark);
    }
  }

  private static Map<String, Row> byId(Dataset<Row> rows) {
    return rows.collectAsList().stream().collect(Collectors.toMap(r -> r.getAs("id"), r -> r));
  }

  /** The same columns and, to the bit, the same vectors. */
  private static void assertSame(Map<String, Row> after, Map<String, Row> before, String what) {
    assertEquals(before.keySet(), after.keySet(), what);
    for (Map.Entry<String, Row> e : before.entrySet()) {
      Row a = after.get(e.getKey());
      Row b = e.getValue();
      assertEquals(List.of(b.schema().fieldNames()), List.of(a.schema().fieldNames()), what);
      assertArrayEquals(SparkInputs.vector(b.getAs("pooled")),
          SparkInputs.vector(a.getAs("pooled")), what + " " + e.getKey());
      double[][] before2 = SparkInputs.matrix(b.getAs("embeddings"));
      double[][] after2 = SparkInputs.matrix(a.getAs("embeddings"));
      assertEquals(before2.length, after2.length);
      for (int t = 0; t < before2.length; t++) {
        assertArrayEquals(before2[t], after2[t], what + " " + e.getKey() + " token " + t);
      }
    }
  }
}
