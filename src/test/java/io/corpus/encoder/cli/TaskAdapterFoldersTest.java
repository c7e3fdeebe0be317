package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.pipeline.EncoderTransformer;
import io.corpus.encoder.pipeline.LoadedModel;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.weights.ModelFolder;
import io.corpus.encoder.weights.WeightsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A folder with a LoRA adapter per task (src/test/resources/qwen3-cases/qwen3-tasks, made by
 * jobs/samples/make_task_adapter_cases.py: a random Qwen3 embedder with PEFT adapters for
 * retrieval (r 4, alpha 16) and text-matching (r 8, alpha 8, rsLoRA) on every projection;
 * references from the float64 port on the weights merged as PEFT merges them), through the job
 * and the Transformer with {@code model.task}.
 */
class TaskAdapterFoldersTest {
  private static final double TOLERANCE = 1e-4;
  private static final String NAME = "qwen3-tasks";

  @TempDir
  Path tmp;

  private FolderCases cases() {
    return new FolderCases("qwen3-cases", tmp);
  }

  /** Each task's adapter merged: the job's and the Transformer's vectors equal its reference. */
  @Test
  void eachTasksAdapterIsMergedAsPeftMergesIt() throws Exception {
    eachTask(NAME);
  }

  /**
   * jina-embeddings-v5-text-small's folder (qwen3-cases/jina-v5-small, made by
   * jobs/samples/make_jina_v5_cases.py): model_type jina_embeddings_v5 with its auto_map, read
   * as Qwen3; each task's adapter merged; its own {@code custom_st.Transformer} module takes the
   * texts as given, so a text's edge whitespace is tokenized (the reference's ids hold it), where
   * sentence-transformers' Transformer module would strip it.
   */
  @Test
  void jinaV5SmallRunsEachTaskOnItsTextsAsGiven() throws Exception {
    ModelFolder folder = ModelFolder.read(cases().folder("jina-v5-small"));
    assertEquals("qwen3", folder.family().name());
    assertFalse(folder.stripsTexts(), "its own module tokenizes the texts as given");
    assertTrue(ModelFolder.read(cases().folder(NAME)).stripsTexts(),
        "sentence-transformers' Transformer module strips them");
    eachTask("jina-v5-small");
  }

  /**
   * jina-embeddings-v3 (xlmr-cases/jina-v3, made by jobs/samples/make_jina_v3_cases.py): Jina's
   * rotary XLM-RoBERTa with its five adapters stacked inside the checkpoint, each task's merged
   * (the embeddings' factors the other way round); only model.task is set, and the folder's
   * prompt of that name goes before every text, as the card encodes with task and prompt_name.
   */
  @Test
  void jinaV3MergesEachTasksAdapterFromItsCheckpoint() throws Exception {
    FolderCases xlmr = new FolderCases("xlmr-cases", tmp);
    ModelFolder folder = ModelFolder.read(xlmr.folder("jina-v3"));
    assertEquals("jina-xlm-roberta", folder.family().name());
    assertTrue(folder.stripsTexts(), "its own module strips the texts, as its source says");
    SparkSession spark = SparkTestSession.get();
    for (Map.Entry<String, String> task : Map.of("retrieval.passage", "texts.json",
        "retrieval.query", "queries.json").entrySet()) {
      JsonNode texts = xlmr.json("jina-v3", task.getValue());
      Path input = xlmr.parquet(spark, texts, false);
      Map<String, Row> job = xlmr.runJob("jina-v3", input, false, "input.max-tokens = 48\n"
          + "model.task = " + task.getKey(), "jina-xlm-roberta");
      Map<String, Row> transformer = FolderCases.byId(new EncoderTransformer()
          .setModelPath(xlmr.folder("jina-v3").toString()).setTextCol("text").setMaxTokens(48)
          .setTask(task.getKey()).transform(spark.read().parquet(input.toString()))
          .collectAsList());
      FolderCases.Worst worst = FolderCases.compare(texts, List.of(job, transformer));
      System.out.printf("jina-v3, task %s: worst ‖Δ‖/‖ref‖ of last hidden states %.2e, worst 1 "
          + "- cosine of pooled vectors %.2e%n", task.getKey(), worst.states(), worst.cosine());
      assertTrue(worst.states() <= TOLERANCE, task.getKey() + ": hidden states "
          + worst.states());
      assertTrue(worst.cosine() <= 1e-6, task.getKey() + ": pooled vectors " + worst.cosine());
    }
    WeightsException e = assertThrows(WeightsException.class, () -> ModelFolder.read(
        xlmr.folder("jina-v3")).withTask(""));
    assertTrue(e.getMessage().contains("[retrieval.query, retrieval.passage, separation, "
        + "classification, text-matching]"), e.getMessage());
  }

  private void eachTask(String name) throws Exception {
    SparkSession spark = SparkTestSession.get();
    for (Map.Entry<String, String> task : Map.of("retrieval", "texts.json",
        "text-matching", "texts-text-matching.json").entrySet()) {
      JsonNode texts = cases().json(name, task.getValue());
      Path input = cases().parquet(spark, texts, false);
      Map<String, Row> job = cases().runJob(name, input, false, "input.max-tokens = 64\n"
          + "model.task = " + task.getKey(), "qwen3");
      Map<String, Row> transformer = FolderCases.byId(new EncoderTransformer()
          .setModelPath(cases().folder(name).toString()).setTextCol("text").setMaxTokens(64)
          .setTask(task.getKey()).transform(spark.read().parquet(input.toString()))
          .collectAsList());
      FolderCases.Worst worst = FolderCases.compare(texts, List.of(job, transformer));
      System.out.printf("%s, task %s: worst ‖Δ‖/‖ref‖ of last hidden states %.2e, worst 1 - "
          + "cosine of pooled vectors %.2e%n", name, task.getKey(), worst.states(),
          worst.cosine());
      assertTrue(worst.states() <= TOLERANCE, task.getKey() + ": hidden states "
          + worst.states());
      assertTrue(worst.cosine() <= 1e-6, task.getKey() + ": pooled vectors " + worst.cosine());
    }
  }

  /**
   * The Transformer keeps the model it read while its params ask for the same one, and reads
   * it again for another task: each task's adapter is merged into its own weights.
   */
  @Test
  void anotherTaskIsAnotherModel() {
    EncoderTransformer t = new EncoderTransformer().setModelPath(cases().folder(NAME).toString())
        .setTextCol("text").setTask("retrieval");
    LoadedModel retrieval = t.model();
    assertSame(retrieval, t.model(), "the same params keep the model read");
    LoadedModel matching = t.setTask("text-matching").model();
    assertTrue(retrieval != matching, "text-matching read again");
    assertEquals("text-matching", matching.folder().task().orElseThrow().task());
  }

  /**
   * A folder of tasks read without one, or with a task it does not carry, is refused in one
   * line listing its tasks, before Spark; the run summary of a task run names the task.
   */
  @Test
  void aMissingOrUnknownTaskIsRefusedListingTheFoldersTasks() throws Exception {
    Path folder = cases().folder(NAME);
    Path input = cases().parquet(SparkTestSession.get(), cases().json(NAME, "texts.json"),
        false);
    for (String task : List.of("", "classification")) {
      JobRunner.Result run = JobRunner.run(tmp, "input { path = \"" + input + "\", "
          + "text-column = text }", "model { path = \"" + folder + "\", task = \"" + task
          + "\" }", "output.path = \"" + tmp.resolve("never-" + task) + "\"");
      assertEquals(1, run.code(), run.error());
      assertTrue(run.error().contains("[retrieval, text-matching]"), run.error());
      assertTrue(!Files.exists(tmp.resolve("never-" + task)));
    }
    WeightsException e = assertThrows(WeightsException.class, () -> new EncoderTransformer()
        .setModelPath(folder.toString()).setTextCol("text").setTask("separation")
        .transform(SparkTestSession.get().read().parquet(input.toString())).count());
    assertTrue(e.getMessage().contains("model.task = separation is not a task of"),
        e.getMessage());
    Path output = tmp.resolve("out-summary");
    JobRunner.Result run = JobRunner.run(tmp, "input { path = \"" + input + "\", "
        + "text-column = text }", "model { path = \"" + folder + "\", task = retrieval }",
        "output.path = \"" + output + "\"");
    assertEquals(0, run.code(), run.error());
    assertTrue(Files.readString(output.resolve("run-summary.json"))
        .contains("\"model.task\" : \"retrieval\""));
  }
}
