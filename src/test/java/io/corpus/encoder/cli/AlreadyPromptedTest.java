package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.testing.LogLines;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.ThreadsJobs;
import io.corpus.encoder.testing.Tolerances;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.logging.log4j.Level;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Texts that already begin with the prompt the job is about to put before them (or another of
 * the folder's, or a label of a reranker's template): counted by --check on a sample and by the
 * job over every row, warned of, and, as input.on-already-prompted says, prompted anyway, encoded
 * as given, or refused before Spark. Each case runs one folder on one input where every text
 * stands plain ({@code t-k}) and some stand again with a prefix written into them, so that a
 * text encoded as given is compared with its plain twin in the same run.
 */
class AlreadyPromptedTest {
  private static final String[] TEXTS = {
      "The cat sat on the mat by the door.",
      "Rivers carry water from the hills to the sea.",
      "A library lends books to everyone in the town.",
      "Bread rises when the yeast is warm and fed.",
      "The train to the coast leaves every hour.",
      "Bees visit flowers and carry pollen between them.",
      "Snow fell on the mountains during the night.",
      "The market sells fruit, fish and fresh bread.",
      "Old maps show roads that no longer exist.",
      "A quiet room helps a student read for hours."};
  private static final String PROMPTS_WITH_DEFAULT = "{\"prompts\": {\"query\": \"query: \", "
      + "\"classification\": \"classify: \"}, \"default_prompt_name\": \"classification\"}";

  @TempDir
  Path tmp;

  /** Every text plain; 0-2 after "passage: ", 3 after "  passage:", 4-6 "query: ", 7-9 "classify: ". */
  private Path input() {
    List<Row> rows = new ArrayList<>();
    for (int k = 0; k < TEXTS.length; k++) {
      rows.add(RowFactory.create("t-" + k, TEXTS[k]));
      String prefix = k < 3 ? "passage: " : k == 3 ? "  passage:" : k < 7 ? "query: "
          : "classify: ";
      rows.add(RowFactory.create(prefix.strip().charAt(0) + "-" + k, prefix + TEXTS[k]));
    }
    Path input = tmp.resolve("texts.parquet");
    if (!input.toFile().exists()) {
      SparkTestSession.get().createDataFrame(rows, new StructType()
          .add("id", DataTypes.StringType).add("text", DataTypes.StringType)).coalesce(1)
          .write().parquet(input.toString());
    }
    return input;
  }

  private Path folder() throws Exception {
    Path folder = tmp.resolve("with-prompts");
    return folder.toFile().exists() ? folder
        : PromptFolders.miniLm(tmp, "with-prompts", true, PromptFolders.QUERY_AND_PASSAGE);
  }

  /** A job's lines on single texts (the input's text column). */
  private String[] lines(Path input, Path model, Path out, String... more) {
    return joined(new String[] {"input.text-column = text"}, texts(input, model, out, more));
  }

  private static String[] texts(Path input, Path model, Path out, String... more) {
    return joined(new String[] {"input.path = \"" + input + "\"", "model.path = \"" + model
        + "\"", "output.path = \"" + out + "\""}, more);
  }

  private static String[] joined(String[] a, String... b) {
    return Stream.concat(Stream.of(a), Stream.of(b)).toArray(String[]::new);
  }

  /** --check's output (it must pass). */
  private String check(String... lines) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = new EncodeCommand(new PrintStream(out), new PrintStream(err)).run(new String[] {"--config", JobRunner.config(tmp,
            "check-" + System.nanoTime(), lines).toString(), "--check"});
    String printed = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
    return printed;
  }

  /** What a job wrote and warned. */
  private record Run(Map<String, Row> rows, RunSummary summary, List<String> warnings) {
    double[] vector(String id, String column) {
      return SparkInputs.vector(rows.get(id).getAs(column));
    }
  }

  private Run run(String... lines) throws Exception {
    Path out = Path.of(Stream.of(lines).filter(l -> l.startsWith("output.path")).findFirst()
        .orElseThrow().replaceAll(".*= \"(.*)\"", "$1"));
    try (LogLines log = LogLines.of(Level.WARN)) {
      JobRunner.Result result = JobRunner.run(tmp, lines);
      assertEquals(0, result.code(), result.error());
      Map<String, Row> byId = new HashMap<>();
      for (Row r : SparkTestSession.get().read().parquet(out.resolve("embeddings").toString())
          .collectAsList()) {
        byId.put(r.getAs("id"), r);
      }
      return new Run(byId, RunSummary.read(out.resolve("run-summary.json")),
          log.lines().stream().filter(l -> l.contains("already began")).toList());
    }
  }

  /** The job refused under fail, in one line, before Spark ran a job of its own. */
  private String refused(String... lines) throws Exception {
    try (ThreadsJobs counted = ThreadsJobs.count()) {
      JobRunner.Result result = JobRunner.run(tmp, lines);
      assertEquals(1, result.code(), result.error());
      assertEquals(1, result.error().lines().count(), result.error());
      assertEquals(0, counted.jobs(), "Spark jobs run before the refusal");
      return result.error();
    }
  }

  private static void same(Run run, String a, String b) {
    double cosine = Tolerances.cosine(run.vector(a, "pooled"), run.vector(b, "pooled"));
    assertTrue(cosine >= 1 - 1e-6, a + " against " + b + ": cosine " + cosine);
  }

  /** A reranker's one logit, of two rows of a run. */
  private static double logitGap(Run run, String a, String b) {
    double x = run.vector(a, "logits")[0];
    double y = run.vector(b, "logits")[0];
    return Math.abs(x - y) / Math.max(1, Math.abs(y));
  }

  private static void same(Run run, String a, Run other, String b) {
    double cosine = Tolerances.cosine(run.vector(a, "pooled"), other.vector(b, "pooled"));
    assertTrue(cosine >= 1 - 1e-6, a + " against " + b + " of the other run: " + cosine);
  }

  private static void differ(Run run, String a, String b) {
    double cosine = Tolerances.cosine(run.vector(a, "pooled"), run.vector(b, "pooled"));
    assertTrue(cosine < 0.9999, a + " and " + b + " should differ: cosine " + cosine);
  }

  /**
   * The folder's passage prompt by role (document): seven texts hold it or its query prompt
   * ("  passage:" included: edge whitespace, and the prompt's own trailing space, ignored);
   * skip-prompt encodes them as given, so "passage: T" is T with the prompt and "query: T" is T
   * as a query would be; the query role is the same with the two prompts' parts swapped.
   */
  @Test
  void documentAndQueryPromptsAlreadyInTheText() throws Exception {
    Path in = input();
    Path model = folder();
    String checked = check(lines(in, model, tmp.resolve("never")));
    assertTrue(checked.contains("already prompted: of the first 20 rows of 1 input file, 4 "
        + "begin with 'passage: ' (passage), 3 with 'query: ' (query), a prompt of the folder "
        + "the job puts before each text; set input.prompt = \"\""), checked);
    assertTrue(refused(lines(in, model, tmp.resolve("never"), "input.on-already-prompted = "
        + "fail")).equals("error: input.on-already-prompted = fail: of the first 20 rows of 1 "
        + "input file, 4 begin with 'passage: ' (passage), 3 with 'query: ' (query), a prompt "
        + "of the folder; set input.prompt = \"\" to put no prompt before any text, or keep it "
        + "and strip the prefix from the column (input.on-already-prompted = skip-prompt puts "
        + "it only before texts that hold none)"));

    Run warned = run(lines(in, model, tmp.resolve("doc-warn")));
    assertEquals(7L, warned.summary().rowsAlreadyPrompted());
    assertEquals(List.of("7 rows encoded already began with a prompt of the folder (one of "
        + "'passage: ' (passage), 'query: ' (query)) and got the prompt before it once more; set "
        + "input.prompt = \"\" to put no prompt before any text, or keep it and strip the prefix "
        + "from the column (input.on-already-prompted = skip-prompt puts it only before texts "
        + "that hold none)"), warned.warnings());
    differ(warned, "p-0", "t-0");   // "passage: passage: T" is not "passage: T"
    Run skipped = run(lines(in, model, tmp.resolve("doc-skip"),
        "input.on-already-prompted = skip-prompt"));
    Run query = run(lines(in, model, tmp.resolve("query-skip"), "input.role = query",
        "input.on-already-prompted = skip-prompt"));
    assertEquals(7L, skipped.summary().rowsAlreadyPrompted());
    assertEquals(7L, query.summary().rowsAlreadyPrompted());
    assertEquals(1, skipped.warnings().size());
    assertTrue(query.warnings().get(0).startsWith("7 rows encoded already began with a prompt "
        + "of the folder (one of 'passage: ' (passage), 'query: ' (query)) and were encoded as "
        + "given"), query.warnings().toString());
    String queries = check(lines(in, model, tmp.resolve("never"), "input.role = query"));
    assertTrue(queries.contains("prompt: 'query: ' (query)\nalready prompted: of the first 20 "
        + "rows of 1 input file, 4 begin with 'passage: ' (passage), 3 with 'query: ' (query)"),
        queries);
    assertTrue(refused(lines(in, model, tmp.resolve("never"), "input.role = query",
        "input.on-already-prompted = fail")).contains("4 begin with 'passage: ' (passage)"));
    for (int k = 0; k < 4; k++) {
      same(skipped, "p-" + k, "t-" + k);   // the passage prompt, once
      same(query, "p-" + k, skipped, "t-" + k);      // a query held a passage prompt: as given
    }
    for (int k = 4; k < 7; k++) {
      same(query, "q-" + k, "t-" + k);
      same(skipped, "q-" + k, query, "t-" + k);
    }
    differ(skipped, "t-0", "t-1");
  }

  /**
   * A folder whose default prompt is its classification prompt (no document prompt): its
   * "classify: " texts and its "query: " texts are held; "passage: " is none of its prompts.
   */
  @Test
  void theFoldersDefaultPromptAlreadyInTheText() throws Exception {
    Path in = input();
    Path model = PromptFolders.miniLm(tmp, "default-prompt", true, PROMPTS_WITH_DEFAULT);
    String checked = check(lines(in, model, tmp.resolve("never")));
    // as many of each: in the order the sample met them
    assertTrue(checked.contains("already prompted: of the first 20 rows of 1 input file, 3 "
        + "begin with 'query: ' (query), 3 with 'classify: ' (classification)"), checked);
    assertTrue(refused(lines(in, model, tmp.resolve("never"), "input.on-already-prompted = "
        + "fail")).contains("3 begin with 'query: ' (query), 3 with 'classify: '"));
    Run warned = run(lines(in, model, tmp.resolve("default-warn")));
    assertEquals(6L, warned.summary().rowsAlreadyPrompted());
    assertEquals(1, warned.warnings().size());
    differ(warned, "c-7", "t-7");
    Run skipped = run(lines(in, model, tmp.resolve("default-skip"),
        "input.on-already-prompted = skip-prompt"));
    assertEquals(6L, skipped.summary().rowsAlreadyPrompted());
    for (int k = 7; k < 10; k++) {
      same(skipped, "c-" + k, "t-" + k);
    }
    differ(skipped, "p-0", "t-0");   // "passage: " is text here, and the prompt goes before it
  }

  /**
   * mxbai-rerank-v2's template writes "query: " before the query and "document: " before the
   * document: a pair whose texts hold them is counted; skip-prompt leaves a held label out, so
   * such a pair scores as its plain twin.
   */
  @Test
  void aRerankersTemplateLabelsAlreadyInThePair() throws Exception {
    List<Row> rows = new ArrayList<>();
    for (int k = 0; k < 3; k++) {
      String q = TEXTS[k].replace(".", "?");
      String d = TEXTS[k + 3];
      rows.add(RowFactory.create("t-" + k, q, d));
      rows.add(RowFactory.create("q-" + k, "query: " + q, d));
      rows.add(RowFactory.create("d-" + k, q, "document: " + d));
      rows.add(RowFactory.create("b-" + k, "query: " + q, "document: " + d));
    }
    Path in = tmp.resolve("pairs.parquet");
    SparkTestSession.get().createDataFrame(rows, new StructType().add("id", DataTypes.StringType)
        .add("text", DataTypes.StringType).add("passage", DataTypes.StringType)).coalesce(1)
        .write().parquet(in.toString());
    Path model = new FolderCases("reranker-cases", tmp).folder("mxbai-rerank-v2");
    String[] pairs = {"input.text-pair-columns = [text, passage]", "model.reranker = mxbai-v2",
        "output.token-embeddings = false"};
    String[] checkLines = joined(texts(in, model, tmp.resolve("never")), pairs);
    assertTrue(check(checkLines).contains("already prompted: of the first 12 rows of 1 input "
        + "file, 6 begin with 'query: ' (mxbai-v2 template), 3 with 'document: ' (mxbai-v2 "
        + "template), a label of the reranker's template the job puts before each text in its "
        + "template; strip the label from the column"), check(checkLines));
    String[] fail = joined(checkLines, "input.on-already-prompted = fail");
    assertTrue(refused(fail).contains("a label of the reranker's template; strip the label"));
    Run warned = run(joined(texts(in, model, tmp.resolve("rerank-warn")), pairs));
    assertEquals(9L, warned.summary().rowsAlreadyPrompted());
    assertEquals(List.of("9 rows encoded already began with a label of the reranker's template "
        + "(one of 'instruction: ' (mxbai-v2 template), 'query: ' (mxbai-v2 template), "
        + "'document: ' (mxbai-v2 template)) and got the template's label before it once more; "
        + "strip the label from the column, or set input.on-already-prompted = skip-prompt to "
        + "write the template's labels only before texts that hold none"), warned.warnings());
    Run skipped = run(joined(texts(in, model, tmp.resolve("rerank-skip"),
        "input.on-already-prompted = skip-prompt"), pairs));
    for (int k = 0; k < 3; k++) {
      for (String held : List.of("q-", "d-", "b-")) {
        assertTrue(logitGap(skipped, held + k, "t-" + k) <= 1e-5, held + k);
        assertTrue(logitGap(warned, held + k, "t-" + k) > 1e-4, held + k);
      }
    }
  }

  /** No prompt, nothing counted: rows_already_prompted is left out of the summary. */
  @Test
  void withoutAPromptNothingIsCounted() throws Exception {
    Run plain = run(lines(input(), SharedModels.miniLm(), tmp.resolve("plain")));
    assertNull(plain.summary().rowsAlreadyPrompted());
    assertEquals(List.of(), plain.warnings());
  }
}
