package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.config.AutoChoices;
import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
import io.corpus.encoder.weights.ModelFolder;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * config_sentence_transformers.json's prompts, as sentence-transformers' encode applies them: the
 * prompt put before each text, then tokenized with it; by name, as given, or the folder's default;
 * left out of mean pooling when 1_Pooling says include_prompt = false.
 */
class PromptsTest {
  @TempDir
  Path tmp;

  /** all-MiniLM-L6-v2 with a query and a passage prompt; include_prompt as given. */
  private Path folder(String name, boolean includePrompt) throws Exception {
    return PromptFolders.miniLm(tmp, name, includePrompt, PromptFolders.QUERY_AND_PASSAGE);
  }

  private Map<String, double[]> pooled(Path out) {
    Map<String, double[]> byId = new HashMap<>();
    for (Row r : SparkTestSession.get().read().parquet(out.resolve("embeddings").toString())
        .collectAsList()) {
      byId.put(r.getAs("id"), SparkInputs.vector(r.getAs("pooled")));
    }
    return byId;
  }

  /** The job on {@code input}'s text with {@code model} and the extra lines; its output. */
  private Path encode(String name, Path input, Path model, String... lines) throws Exception {
    Path out = tmp.resolve(name);
    String[] all = Stream.concat(Stream.of("input.path = \"" + input + "\"",
        "input.text-column = text", "model.path = \"" + model + "\"",
        "output.path = \"" + out + "\""), Stream.of(lines)).toArray(String[]::new);
    JobRunner.Result result = JobRunner.run(tmp, all);
    assertEquals(0, result.code(), result.error());
    return out;
  }

  private static double worstCosine(Map<String, double[]> a, Map<String, double[]> b) {
    assertEquals(a.keySet(), b.keySet());
    double worst = 1;
    for (String id : a.keySet()) {
      worst = Math.min(worst, Tolerances.cosine(a.get(id), b.get(id)));
    }
    return worst;
  }

  @Test
  void aPromptByNameByDefaultOrAsGivenGoesBeforeEveryText() throws Exception {
    SparkSession spark = SparkTestSession.get();
    Path texts = SharedModels.miniLm().resolve("expected/texts.parquet");
    Map<String, Map<String, double[]>> prefixed = new HashMap<>();
    for (String prefix : List.of("", "query: ", "passage: ")) {
      Path input = tmp.resolve("prefixed-" + prefix.length() + ".parquet");
      spark.read().parquet(texts.toString()).withColumn("text",
          concat(lit(prefix), col("text"))).write().parquet(input.toString());
      prefixed.put(prefix, pooled(encode("plain-" + prefix.length(), input,
          SharedModels.miniLm())));
    }
    Path model = folder("with-prompts", true);
    Path query = encode("query", texts, model, "input.prompt-name = query");
    Path byDefault = encode("default", texts, model);
    Path off = encode("off", texts, model, "input.prompt = \"\"");
    Path given = encode("given", texts, model, "input.prompt = \"query: \"");
    Path role = encode("role", texts, model, "input.role = query");
    assertTrue(worstCosine(pooled(query), prefixed.get("query: ")) >= 1 - 1e-6);
    assertTrue(worstCosine(pooled(byDefault), prefixed.get("passage: ")) >= 1 - 1e-6);
    assertTrue(worstCosine(pooled(off), prefixed.get("")) >= 1 - 1e-6);
    assertTrue(worstCosine(pooled(given), prefixed.get("query: ")) >= 1 - 1e-6);
    assertTrue(worstCosine(pooled(role), prefixed.get("query: ")) >= 1 - 1e-6);
    // Not the same vectors whatever the prompt: the test can tell them apart.
    assertTrue(worstCosine(pooled(query), prefixed.get("passage: ")) < 0.999);
    Map<String, Object> summary = RunSummary.read(byDefault.resolve("run-summary.json")).model();
    assertEquals("passage", summary.get("prompt_name"));
    assertEquals("passage: ", summary.get("prompt"));
    assertEquals(null, RunSummary.read(given.resolve("run-summary.json")).model()
        .get("prompt_name"));
  }

  /**
   * input.role picks the prompt as encode_query and encode_document do: "query"; "document",
   * else "passage", else "corpus"; then default_prompt_name; a prompt asked for by name or as
   * text wins.
   */
  @Test
  void theRolePicksTheFoldersPromptOfThatName() {
    ModelFolder nomic = ModelFolder.read(Path.of("src/test/resources/nomic-cases/nomic-embed"));
    ModelFolder mistral = ModelFolder.read(Path.of(
        "src/test/resources/mistral-cases/e5-mistral"));
    String[] names = {"input.prompt", "input.prompt-name"};
    AutoChoices.PromptUse single = AutoChoices.PromptUse.SINGLE_TEXTS;
    assertEquals(new AutoChoices.Prompt("query", "search_query: "),
        AutoChoices.prompt("", false, "", true, nomic, single, names));
    assertEquals(new AutoChoices.Prompt("document", "search_document: "),
        AutoChoices.prompt("", false, "", false, nomic, single, names));
    assertEquals(new AutoChoices.Prompt("clustering", "clustering: "),
        AutoChoices.prompt("", false, "clustering", true, nomic, single, names));
    assertEquals(AutoChoices.Prompt.NONE,
        AutoChoices.prompt("", true, "", false, nomic, single, names));
    assertEquals(AutoChoices.Prompt.NONE,
        AutoChoices.prompt("", false, "", true, mistral, single, names));
  }

  /** include_prompt = false: the mean of the token vectors after [CLS] "query" ":". */
  @Test
  void aPromptTheFolderDoesNotPoolIsLeftOutOfTheMean() throws Exception {
    Path texts = SharedModels.miniLm().resolve("expected/texts.parquet");
    Path out = encode("unpooled", texts, folder("unpooled-prompt", false),
        "input.prompt-name = query");
    double worst = 1;
    for (Row r : SparkTestSession.get().read().parquet(out.resolve("embeddings").toString())
        .collectAsList()) {
      List<Integer> ids = r.getList(r.fieldIndex("input_ids"));
      assertEquals(List.of(101, 23032, 1024), ids.subList(0, 3), "[CLS] query :");
      double[][] tokens = SparkInputs.matrix(r.getAs("embeddings"));
      double[] mean = new double[tokens[0].length];
      for (int t = 3; t < tokens.length; t++) {
        for (int e = 0; e < mean.length; e++) {
          mean[e] += tokens[t][e] / (tokens.length - 3);
        }
      }
      worst = Math.min(worst, Tolerances.cosine(mean, SparkInputs.vector(r.getAs("pooled"))));
    }
    assertTrue(worst >= 1 - 1e-6, "worst cosine " + worst);
  }

  @Test
  void promptsWhereTheyDoNotGoAreRefusedInOneLine() throws Exception {
    Path texts = SharedModels.miniLm().resolve("expected/texts.parquet");
    Path model = folder("refusing", true);
    Map<String, String> refused = Map.of(
        "input.prompt-name = search", "input.prompt-name = search is not a prompt of " + model
            + "/config_sentence_transformers.json; its prompts: [passage, query]",
        "input.prompt-name = query\ninput.prompt = \"q: \"",
        "Set input.prompt or input.prompt-name, not both",
        "input.text-column = \"\"\ninput.text-pair-columns = [text, text2]\n"
            + "input.prompt-name = query", "input.prompt-name goes before single texts; text "
            + "pairs take no prompt",
        "input.on-too-long = chunk", "The prompt 'passage: ' (passage) would go before a whole "
            + "text, and with on-too-long = chunk only its first window would hold it; set "
            + "input.prompt = \"\" to encode the windows without one");
    for (Map.Entry<String, String> c : refused.entrySet()) {
      JobRunner.Result result = JobRunner.run(tmp, "input.path = \"" + texts + "\"",
          "input.text-column = text", "model.path = \"" + model + "\"",
          "output.path = \"" + tmp.resolve("never") + "\"", c.getKey());
      assertEquals(1, result.code(), c.getKey());
      assertEquals("error: " + c.getValue(), result.error(), c.getKey());
    }
  }
}
