package io.corpus.encoder.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.PositionalEncoding;
import io.corpus.encoder.model.Window;
import io.corpus.encoder.weights.TensorNaming;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsParserTest {
  private static final String REQUIRED =
      "input.path = in\nmodel.weights = w.safetensors\nmodel.heads = 4\noutput.path = out\n";

  @TempDir
  Path tmp;

  private static JobSettings parse(String hocon) {
    return SettingsParser.parse(ConfigFactory.parseString(hocon), null);
  }

  private static String error(String hocon) {
    return assertThrows(SettingsException.class, () -> parse(hocon)).getMessage();
  }

  @Test
  void defaultsComeFromReferenceConf() {
    JobSettings s = parse(REQUIRED);
    assertEquals("id", s.input().idColumn());
    assertEquals("embeddings", s.input().embeddingsColumn());
    assertFalse(s.input().hasMask());
    assertEquals(JobSettings.OnInvalid.QUARANTINE, s.input().onInvalid());
    assertEquals(TensorNaming.PYTORCH, s.weights().naming());
    assertEquals(4, s.model().heads());
    assertEquals(Activation.RELU, s.model().architecture().activation());
    assertEquals(1e-5, s.model().architecture().norms().eps());
    assertEquals(PositionalEncoding.NONE, s.model().positional());
    assertEquals(JobSettings.OutputMode.ERROR_IF_EXISTS, s.output().mode());
    assertEquals(Pooling.MEAN, s.output().pooling());
    assertFalse(s.output().attention().enabled());
    assertEquals(4096, s.execution().batchTokens());
  }

  /** Late chunking pools chunks of texts: token vectors and a span size alone are refused. */
  @Test
  void lateChunkingNeedsTextAndItsSpanSizeNeedsIt() {
    assertTrue(error(REQUIRED + "input.late-chunking = sentences").contains(
        "input.late-chunking encodes single texts (input.text-column) whole and pools their "
            + "chunks; it does not apply to token ids or token vectors"));
    assertTrue(error(REQUIRED + "input.chunk-tokens = 64").contains(
        "input.chunk-tokens goes with input.late-chunking"));
    assertTrue(error(REQUIRED + "input.late-chunking = paragraphs").contains(
        "input.late-chunking = 'paragraphs' is not one of none, tokens, sentences"));
  }

  /** A late-chunking window that would repeat all but its last position is refused by name. */
  @Test
  void lateChunkingsOverlapLeavesEachWindowNewTokens() {
    String job = "input { path = in, text-column = text, late-chunking = tokens, max-tokens = 64, "
        + "chunk-overlap = %d }\nmodel.path = \""
        + io.corpus.encoder.testing.SharedModels.miniLm() + "\"\noutput.path = out\n";
    assertTrue(error(String.format(job, 63)).contains("input.chunk-overlap = 63 must be below "
        + "63 with input.late-chunking: each window of input.max-tokens = 64 repeats"));
    assertEquals(62, parse(String.format(job, 62)).input().chunkOverlap());
  }

  @Test
  void everyKeyCanBeSet() {
    JobSettings s = parse(REQUIRED + """
        input { id-column = doc, embeddings-column = vecs, mask-column = m, max-length = 512,
                on-invalid = fail }
        model { naming = bert, activation = gelu-tanh, norm-first = true, final-norm = true,
                layer-norm-eps = 1e-12, causal = true, window = 16, positional = learned }
        output { mode = overwrite, pooling = max,
                 attention { enabled = true, layers = [0, 2], heads = [1], ids = [a, "b c"],
                             format = top-k, top-k = 4, average-heads = true, stats = true,
                             rollout = true }
                 report { enabled = true, sequences = 3, max-tokens = 32, color-column = topic,
                          map-points = 500, neighbours = 4, duplicates-above = 0.9 } }
        execution { batch-tokens = 100, reader-batch-rows = 16, min-partitions = 8,
                    progress = false, checkpoint-seconds = 5, resume = false }
        """);
    assertEquals("doc", s.input().idColumn());
    assertEquals("m", s.input().maskColumn());
    assertEquals(512, s.input().maxLength());
    assertEquals(JobSettings.OnInvalid.FAIL, s.input().onInvalid());
    assertEquals(TensorNaming.BERT, s.weights().naming());
    assertEquals(Activation.GELU_TANH, s.model().architecture().activation());
    Architecture a = s.model().architecture();
    assertTrue(a.norms().placement().first() && a.norms().finalNorm() && a.causal());
    assertEquals(Window.within(16), s.model().window());
    assertEquals(PositionalEncoding.LEARNED, s.model().positional());
    assertEquals(Pooling.MAX, s.output().pooling());
    assertEquals(new AttentionOutputs(true, List.of(0, 2), List.of(1), 1.0,
        new java.util.TreeSet<>(List.of("a", "b c")),
        AttentionOutputs.MapFormat.TOP_K, 4, true, true, true, AttentionOutputs.Measure.WEIGHTS,
        List.of(), false, 1.0), s.output().attention());
    assertEquals(new JobSettings.Report(true, 3, 32, "topic", 500, 4, 0.9), s.output().report());
    assertEquals(new JobSettings.Execution(100, 16, 8, false, false), s.execution());
    assertEquals(5, (int) s.value(Settings.CHECKPOINT_SECONDS));
  }

  @Test
  void attentionChoicesAreCheckedWithClearErrors() {
    assertEquals("output.attention.sample must be in (0, 1], got 1.5",
        error(REQUIRED + "output.attention.sample = 1.5\n"));
    assertEquals("Set output.attention.ids or output.attention.sample, not both (ids [x], "
        + "sample 0.5)", error(REQUIRED + "output.attention { ids = [x], sample = 0.5 }\n"));
    assertEquals("output.attention.format = 'sparse' is not one of full, top-k",
        error(REQUIRED + "output.attention.format = sparse\n"));
    assertEquals("output.attention.top-k must be at least 1, got 0",
        error(REQUIRED + "output.attention.top-k = 0\n"));
    assertTrue(error(REQUIRED + "output { report.enabled = true, pooling = none }\n")
        .startsWith("output.report.enabled needs something to show"));
    assertTrue(error(REQUIRED + "output.report { enabled = true, map-points = 0 }\n")
        .startsWith("output.report.enabled needs something to show"));
    assertEquals("output.report.duplicates-above must be in (0, 1], got 1.5",
        error(REQUIRED + "output.report.duplicates-above = 1.5\n"));
  }

  @Test
  void typoIsRefusedNamingTheKeyAndTheKnownOnes() {
    String message = error(REQUIRED + "model.haeds = 12\n");
    assertTrue(message.startsWith("Unknown setting 'model.haeds' (String: 5); keys under model: "
        + "[activation, causal, final-norm, heads,"), message);
    assertTrue(error(REQUIRED + "ouput.path = x\n").startsWith("Unknown setting 'ouput.path'"));
  }

  @Test
  void wrongTypesRangesAndEnumsNameTheKey() {
    assertTrue(error(REQUIRED + "model.heads = many\n").contains("model.heads has type STRING "
        + "rather than NUMBER"));
    assertEquals("model.heads must be set to the number of attention heads (1 or more), got 0",
        error(REQUIRED + "model.heads = 0\n"));
    assertEquals("model.window must be at least 0, got -1",
        error(REQUIRED + "model.window = -1\n"));
    assertEquals("model.activation = 'swish' is not one of relu, gelu, gelu-tanh, silu",
        error(REQUIRED + "model.activation = swish\n"));
    assertEquals("output.mode = 'append' is not one of error-if-exists, overwrite, "
        + "replace-any-folder, update",
        error(REQUIRED + "output.mode = append\n"));
    assertEquals("model.layer-norm-eps must be a positive number, got 0.0",
        error(REQUIRED + "model.layer-norm-eps = 0\n"));
    assertEquals("output.attention.layers holds -1; indices are 0-based and not negative",
        error(REQUIRED + "output.attention.layers = [-1]\n"));
    assertEquals("input.path must be set", error("model.weights = w\nmodel.heads = 1\n"
        + "output.path = o\n"));
  }

  @Test
  void relativePathsResolveAgainstTheConfigFile() throws Exception {
    Path conf = tmp.resolve("conf");
    Files.createDirectories(conf);
    Path file = conf.resolve("job.conf");
    Files.writeString(file, REQUIRED.replace("input.path = in", "input.path = \"../data/in\""));
    JobSettings s = SettingsParser.parseFile(file);
    assertEquals(tmp.resolve("data/in").toString(), s.input().path());
    assertEquals(conf.resolve("out").toString(), s.output().path());
    assertEquals("s3a://bucket/x", SettingsParser.parse(ConfigFactory.parseString(
        REQUIRED.replace("input.path = in", "input.path = \"s3a://bucket/x\"")),
        new File("/base")).input().path());

    // An included file's paths resolve against its own folder, the including file's against its.
    Path other = Files.createDirectories(tmp.resolve("elsewhere"));
    Path job = other.resolve("mine.conf");
    Files.writeString(job, "include file(\"" + file + "\")\noutput.path = mine\n");
    JobSettings included = SettingsParser.parseFile(job);
    assertEquals(tmp.resolve("data/in").toString(), included.input().path());
    assertEquals(other.resolve("mine").toString(), included.output().path());
  }

  @Test
  void missingFileIsNamed() {
    Path file = tmp.resolve("absent.conf");
    assertEquals("Config file not found: " + file, assertThrows(SettingsException.class,
        () -> SettingsParser.parseFile(file)).getMessage());
  }

  private String fileError(String hocon) throws Exception {
    Path file = tmp.resolve("job-" + System.nanoTime() + ".conf");
    Files.writeString(file, hocon);
    return assertThrows(SettingsException.class, () -> SettingsParser.parseFile(file))
        .getMessage();
  }

  @Test
  void aMissingIncludedFileIsAnErrorNamingIt() throws Exception {
    Path common = tmp.resolve("common.conf");
    Files.writeString(common, REQUIRED);
    Path job = tmp.resolve("job.conf");
    Files.writeString(job, "include file(\"" + common + "\")\n");
    assertEquals(tmp.resolve("out").toString(), SettingsParser.parseFile(job).output().path());
    String message = fileError("include file(\"" + tmp.resolve("comon.conf") + "\")\n"
        + REQUIRED);
    assertTrue(message.contains(tmp.resolve("comon.conf") + " (No such file or directory)"),
        message);
    message = fileError("include \"" + tmp.resolve("comon.conf") + "\"\n" + REQUIRED);
    assertTrue(message.contains("comon.conf"), message);
  }

  @Test
  void anUnknownTopLevelKeyGetsTheUsualLine() {
    assertEquals("Unknown setting 'foo' (String: 1); sections: [execution, input, model, output]",
        error("foo = 1\n" + REQUIRED));
    assertEquals("Unknown setting 'outptu.path' (String: 1); sections: [execution, input, "
        + "model, output]", error("outptu.path = x\n" + REQUIRED));
    assertEquals("Unknown setting 'java.version' (String: 1); sections: [execution, input, "
        + "model, output]", error("java.version = 11\n" + REQUIRED));
  }

  @Test
  void errorsNeverEchoEnvironmentValuesOrTheFilesText() throws Exception {
    String home = System.getenv("HOME");
    String message = error(REQUIRED + "output.mode = ${HOME}\n");
    assertEquals("output.mode = (a value from an environment variable) is not one of "
        + "error-if-exists, overwrite, replace-any-folder, update", message);
    assertFalse(message.contains(home), message);
    message = fileError("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA [\n");
    assertFalse(message.contains("b3BlbnNzaC1rZXktdjEAAAAA"), message);
    assertFalse(message.contains("OPENSSH"), message);
    assertTrue(message.startsWith("Cannot parse "), message);
  }
}
