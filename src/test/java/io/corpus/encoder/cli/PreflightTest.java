package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.ThreadsJobs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job's refusals, each made before Spark does any work, and {@code --check} giving the same
 * line: a config per refusal, run both ways through the command line.
 */
class PreflightTest {
  @TempDir
  Path tmp;

  private Path config(String name, String... lines) throws Exception {
    return JobRunner.config(tmp, name, lines);
  }

  private static String q(Object path) {
    return "\"" + path + "\"";
  }

  @Test
  void everyRefusalComesBeforeSparkWorksAndCheckGivesTheSameLine() throws Exception {
    SparkSession spark = SparkTestSession.get();
    Path data = Files.createDirectories(tmp.resolve("data"));
    Path docs = data.resolve("docs.parquet");
    spark.sql("SELECT 'a' AS id, 'A short sentence.' AS text, 1 AS n, 'x' AS category")
        .coalesce(1).write().parquet(docs.toString());
    Path model = SharedModels.miniLm();
    String in = "input.path = " + q(docs);
    String text = "input.text-column = text";
    String miniLm = "model.path = " + q(model);
    Path notOurs = Files.createDirectories(tmp.resolve("not-ours"));
    Files.writeString(notOurs.resolve("notes.txt"), "mine");
    Path locked = tmp.resolve("locked");
    ProcessHandle self = ProcessHandle.current();
    Files.writeString(tmp.resolve(".locked.lock"), "host=" + java.net.InetAddress.getLocalHost()
        .getHostName() + " pid=" + self.pid() + " process-start=" + self.info().startInstant()
        .map(Instant::toString).orElse("") + " run=other-run\n");
    Path broken = Files.createDirectories(tmp.resolve("broken.parquet"));
    Path part;
    try (Stream<Path> files = Files.list(docs)) {
      part = files.filter(f -> f.toString().endsWith(".parquet")).findFirst().orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(part);
    Files.write(broken.resolve("part-0.parquet"),
        java.util.Arrays.copyOf(bytes, bytes.length - 3));

    Map<Path, String> cases = new LinkedHashMap<>();
    cases.put(config("glob", "input.path = " + q(data + "/d*"), text, miniLm,
        "output.path = " + q(data.resolve("docs-vectors")), "output.mode = replace-any-folder"),
        "output.path " + data.resolve("docs-vectors") + " is matched by input.path " + data
            + "/d*: the output must be a folder apart from what the job reads");
    cases.put(config("system", in, text, miniLm, "output.path = /usr",
        "output.mode = replace-any-folder"), "output.path /usr is a top-level folder of its "
            + "file system, which other programs share: the job replaces its output path whole, "
            + "so name a folder of its own inside one (/usr/vectors)");
    cases.put(config("not-ours", in, text, miniLm, "output.path = " + q(notOurs),
        "output.mode = overwrite"), "Output path " + notOurs + " is a folder this job did not "
            + "write (it holds notes.txt): overwrite and update replace only an empty folder or "
            + "an earlier output. Choose another output.path, or set output.mode = "
            + "replace-any-folder to replace this folder and all it holds");
    cases.put(config("exists", in, text, miniLm, "output.path = " + q(notOurs)),
        "Output path " + notOurs + " exists; set output.mode = overwrite to replace it");
    cases.put(config("locked", in, text, miniLm, "output.path = " + q(locked)),
        "Output path " + locked + " is being written by run other-run of process " + self.pid()
            + " on ");
    cases.put(config("layers", in, text, miniLm, "output.path = " + q(tmp.resolve("o1")),
        "output.attention.enabled = true", "output.attention.layers = [0, 6]"),
        "Attention layer 6 does not exist: the model has 6 layers (0-based)");
    cases.put(config("heads", in, text, miniLm, "output.path = " + q(tmp.resolve("o1")),
        "output.attention.stats = true", "output.attention.enabled = true",
        "output.attention.heads = [12]"),
        "Attention head 12 does not exist: the model has 12 heads (0-based)");
    cases.put(config("pair-missing", in, "input.text-pair-columns = [text, passage]", miniLm,
        "output.path = " + q(tmp.resolve("o2"))), "The input has no second text column "
            + "'passage'; its columns are [id, text, n, category]");
    cases.put(config("pair-type", in, "input.text-pair-columns = [text, n]", miniLm,
        "output.path = " + q(tmp.resolve("o3"))), "Column n must be of type string but was int");
    cases.put(config("text-missing", in, "input.text-column = body", miniLm,
        "output.path = " + q(tmp.resolve("o3"))), "The input has no text column 'body'; its "
            + "columns are [id, text, n, category]");
    cases.put(config("color", in, text, miniLm, "output.path = " + q(tmp.resolve("o4")),
        "output.report.enabled = true", "output.report.color-column = topic"),
        "output.report.color-column = topic is not a column of the input; its columns are [id, "
            + "text, n, category]");
    cases.put(config("no-input", "input.path = " + q(data.resolve("missing.parquet")), text,
        miniLm, "output.path = " + q(tmp.resolve("o5"))), "input.path "
            + data.resolve("missing.parquet") + " does not exist");
    cases.put(config("no-match", "input.path = " + q(data + "/x*"), text, miniLm,
        "output.path = " + q(tmp.resolve("o5"))), "input.path " + data + "/x* matches no file");
    cases.put(config("broken", "input.path = " + q(broken), text, miniLm,
        "output.path = " + q(tmp.resolve("o6"))), "Cannot read the Parquet footer of file:"
            + broken.resolve("part-0.parquet") + " (a damaged or truncated file, or not "
            + "Parquet): ");
    // A good first file, then a damaged one: the job finds it planning its splits, --check too.
    Path secondBroken = Files.createDirectories(tmp.resolve("second-broken.parquet"));
    Files.write(secondBroken.resolve("part-0.parquet"), bytes);
    Files.write(secondBroken.resolve("part-1.parquet"),
        java.util.Arrays.copyOf(bytes, bytes.length / 2));
    cases.put(config("second-broken", "input.path = " + q(secondBroken), text, miniLm,
        "output.path = " + q(tmp.resolve("o6"))), "Cannot read the Parquet footer of file:"
            + secondBroken.resolve("part-1.parquet") + " (a damaged or truncated file, or not "
            + "Parquet): ");
    cases.put(config("in-model", in, text, miniLm, "output.path = "
        + q(model.resolve("vectors"))), "output.path " + model.resolve("vectors")
            + " lies inside model.path " + model + ": the output must be a folder apart from "
            + "what the job reads");

    cases.put(config("max-tokens-1", in, text, miniLm, "input.max-tokens = 1",
        "output.path = " + q(tmp.resolve("o7"))), "max-tokens = 1 leaves no room for text: "
            + model.resolve("tokenizer.json") + " adds 2 special tokens to every sequence, so "
            + "set at least 3");
    cases.put(config("max-tokens-2", in, text, miniLm, "input.max-tokens = 2",
        "output.path = " + q(tmp.resolve("o7"))), "max-tokens = 2 leaves no room for text");
    cases.put(config("max-tokens-fraction", in, text, miniLm, "input.max-tokens = 1.5",
        "output.path = " + q(tmp.resolve("o7"))), "input.max-tokens must be a whole number, got "
            + "1.5");
    cases.put(config("overlap", in, text, miniLm, "input.max-tokens = 8",
        "input.on-too-long = chunk", "input.chunk-overlap = 6",
        "output.path = " + q(tmp.resolve("o7"))), "The chunk overlap 6 must be smaller than a "
            + "window's 6 content tokens (8 tokens less 2 special ones)");
    cases.put(config("brace", "input { " + in, text, miniLm,
        "output.path = " + q(tmp.resolve("o7"))), "Cannot parse " + tmp.resolve("brace.conf")
            + ": " + tmp.resolve("brace.conf") + ": 6: expecting a close parentheses ')' here, "
            + "not: end of file");
    cases.put(config("dimensions", in, text, miniLm, "output.dimensions = 500",
        "output.path = " + q(tmp.resolve("o8"))), "dimensions = 500 is more than the model's 384 "
            + "(the width of its pooled vector: E, or its last Dense module's out_features)");
    cases.put(config("dimensions-unpooled", in, text, miniLm, "output.dimensions = 64",
        "output.pooling = none", "output.path = " + q(tmp.resolve("o8"))), "dimensions = 64 cuts "
            + "the pooled vector, but pooling = none writes none");
    cases.put(config("glob-up", "input.path = " + q(data + "/{x,../data/d}*"), text, miniLm,
        "output.path = " + q(data.resolve("docs-vectors")), "output.mode = replace-any-folder"),
        "output.path " + data.resolve("docs-vectors") + " is matched by input.path " + data
            + "/{x,../data/d}*");
    cases.put(config("glob-bad", "input.path = " + q(data + "/[d*"), text, miniLm,
        "output.path = " + q(tmp.resolve("o5"))), "input.path is not a glob Hadoop can read ("
            + "error parsing regexp: Unclosed character class");
    Path link = tmp.resolve("link");
    Files.createSymbolicLink(link, Files.createDirectories(tmp.resolve("elsewhere")));
    cases.put(config("link", in, text, miniLm, "output.path = " + q(link)), "output.path "
        + link + " is a symbolic link (to " + tmp.resolve("elsewhere") + "): the job replaces "
        + "its output path whole, and would put a folder in place of the link; name the folder "
        + "itself as output.path");
    Path dangling = tmp.resolve("dangling");
    Files.createSymbolicLink(dangling, data.resolve("vectors"));
    cases.put(config("dangling", in, text, miniLm, "output.path = " + q(dangling)),
        "output.path " + dangling + " is a symbolic link (to " + data.resolve("vectors")
            + ", which does not exist)");
    cases.put(config("top-k", in, text, miniLm, "output.path = " + q(tmp.resolve("o6")),
        "output.sparse-top-k = 10"), "sparse-top-k = 10 keeps the largest values of sparse "
            + "vectors, and this job makes none (pooling mean, no lexical weights); leave it at 0, "
            + "or use a SPLADE model folder (pooling splade) or bge-m3's lexical weights");
    cases.put(data, "--config " + data + " is a folder; name the job's .conf file in it");

    List<String> wrong = new ArrayList<>();
    int sparkJobs;
    try (ThreadsJobs counted = ThreadsJobs.count()) {
      for (Map.Entry<Path, String> c : cases.entrySet()) {
        JobRunner.Result checked = JobRunner.runConfig(c.getKey(), "--check");
        JobRunner.Result job = JobRunner.runConfig(c.getKey());
        String name = c.getKey().getFileName().toString();
        if (checked.code() != 1 || job.code() != 1 || !checked.error().equals(job.error())
            || !checked.error().startsWith("error: " + c.getValue())) {
          wrong.add(name + ": --check " + checked + ", job " + job);
        }
      }
      sparkJobs = counted.jobs();
    }
    assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    assertEquals(0, sparkJobs, "a refused job ran Spark work");
    assertTrue(Files.exists(locked.resolveSibling(".locked.lock")), "another job's lock kept");
    assertEquals("mine", Files.readString(notOurs.resolve("notes.txt")));
  }
}
