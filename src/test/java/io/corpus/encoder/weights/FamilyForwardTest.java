package io.corpus.encoder.weights;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.model.AttentionSink;
import io.corpus.encoder.model.ClassifierHead;
import io.corpus.encoder.model.Encoder;
import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.PoolingSteps;
import io.corpus.encoder.model.Shapes;
import io.corpus.encoder.model.TokenBatch;
import io.corpus.encoder.model.TokenEmbeddings;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.Tolerances;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every family's golden folders (src/test/resources/*-cases, each made by its
 * jobs/samples/make_*_cases.py against a float64 PyTorch port of the original modelling code)
 * read and run without Spark: the folder's spec and its shapes, the weights loaded against them,
 * the reference's token ids through the embedding layer and the encoder, the pooled vector as
 * the folder's own modules make it, and a classifier's logits, scores and labels (texts and
 * pairs) as its head reads them. The tier a change to a family, a layer or the loader
 * answers to in seconds; the families' folder tests (cli/*FoldersTest) run the same folders
 * through the job and the Transformer, with their tokenizers, prompts and settings.
 */
class FamilyForwardTest {
  private static final Path RESOURCES = Path.of("src", "test", "resources");
  private static final double STATES = 1e-4;
  private static final double COSINE = 1e-6;
  private static final double LOGITS = 1e-4;
  /** The task each file of a folder with an adapter per task was made with. */
  private static final Map<String, Map<String, String>> TASKS = Map.of(
      "jina-v3", Map.of("texts.json", "retrieval.passage", "queries.json", "retrieval.query"),
      "qwen3-tasks", Map.of("texts.json", "retrieval",
          "texts-text-matching.json", "text-matching"),
      "jina-v5-small", Map.of("texts.json", "retrieval",
          "texts-text-matching.json", "text-matching"));

  /**
   * A case: a folder's file of rows with ids, last hidden states and pooled vectors, and the
   * task (an adapter's) it was made with, or "".
   */
  record Case(Path folder, String file, String task) {
    @Override
    public String toString() {
      return folder.getParent().getFileName() + "/" + folder.getFileName()
          + (file.equals("texts.json") ? "" : " " + file)
          + (task.isEmpty() ? "" : ", task " + task);
    }
  }

  /** The folders whose texts.json has last hidden states, each task's file of its own. */
  static Stream<Case> cases() throws IOException {
    return folders("last_hidden_state").flatMap(f -> TASKS.getOrDefault(
        f.getFileName().toString(), Map.of("texts.json", "")).entrySet().stream()
        .sorted(Map.Entry.comparingByKey()).map(t -> new Case(f, t.getKey(), t.getValue())));
  }

  /** The classifier folders: their texts.json, and their pairs.json where they have one. */
  static Stream<Case> classifierCases() throws IOException {
    return folders("logits").flatMap(f -> Stream.of("texts.json", "pairs.json")
        .filter(file -> Files.isRegularFile(f.resolve(file))).map(file -> new Case(f, file, "")));
  }

  /** The case folders whose texts.json rows have {@code field}. */
  private static Stream<Path> folders(String field) throws IOException {
    try (Stream<Path> all = Files.list(RESOURCES)) {
      return all.filter(p -> p.getFileName().toString().endsWith("-cases"))
          .flatMap(FamilyForwardTest::list).filter(f -> has(f, field)).sorted().toList().stream();
    }
  }

  private static Stream<Path> list(Path folder) {
    try {
      return Files.list(folder).toList().stream();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean has(Path folder, String field) {
    Path texts = folder.resolve("texts.json");
    try {
      return Files.isRegularFile(texts) && read(texts).get(0).has(field);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode read(Path file) throws IOException {
    return new ObjectMapper().readTree(file.toFile());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void specShapesAndForwardEqualThePort(Case c) throws IOException {
    Loaded m = Loaded.of(c);
    loaded(c, m.model());
    ModelFolder folder = m.folder();
    ModelSettings settings = folder.settings();
    EncoderModel model = m.model();
    JsonNode texts = read(c.folder().resolve(c.file()));
    TokenBatch batch = m.forward(texts);
    int width = model.width();

    Pooling pooling = folder.pooling().orElse(settings.architecture().causal() ? Pooling.LAST
        : Pooling.MEAN);
    PoolingSteps steps = new PoolingSteps(pooling, 0, pooling.dense() && folder.normalize());
    int unpooled = Files.isRegularFile(c.folder().resolve("instruction.json"))
        ? read(c.folder().resolve("instruction.json")).get("masked_positions").asInt() : 0;
    double worstStates = 0;
    double worstCosine = 0;
    for (int b = 0; b < texts.size(); b++) {
      JsonNode want = texts.get(b);
      int first = batch.firstRow(b);
      int length = batch.length(b);
      JsonNode states = want.get("last_hidden_state");
      assertEquals(states.size(), length, c + " " + want.get("id"));
      double diff = 0;
      double norm = 0;
      for (int t = 0; t < length; t++) {
        for (int e = 0; e < width; e++) {
          double w = states.get(t).get(e).asDouble();
          diff += Math.pow(batch.tokens()[(first + t) * width + e] - w, 2);
          norm += w * w;
        }
      }
      worstStates = Math.max(worstStates, Math.sqrt(diff / norm));
      float[] pooled = steps.of(model, batch.tokens(), first, length, width, unpooled);
      worstCosine = Math.max(worstCosine, 1 - Tolerances.cosine(doubles(pooled),
          GoldenCase.doubles(want.get("pooled"))));
    }
    System.out.printf("%s: worst ‖Δ‖/‖ref‖ of last hidden states %.2e, worst 1 - cosine "
        + "of pooled vectors %.2e%n", c, worstStates, worstCosine);
    assertTrue(worstStates <= STATES, c + ": hidden states " + worstStates);
    assertTrue(worstCosine <= COSINE, c + ": pooled vectors " + worstCosine);
    assertFalse(texts.isEmpty());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("classifierCases")
  void classifierHeadsEqualThePort(Case c) throws IOException {
    Loaded m = Loaded.of(c);
    loaded(c, m.model());
    ClassifierHead head = m.model().head(ClassifierHead.class).orElseThrow();
    JsonNode rows = read(c.folder().resolve(c.file()));
    TokenBatch batch = m.forward(rows);
    double worst = 0;
    for (int b = 0; b < rows.size(); b++) {
      JsonNode want = rows.get(b);
      int length = batch.length(b);
      int from = head.readFrom(GoldenCase.ints(want.get("input_ids")), length);
      float[] logits = head.logits(batch.tokens(), (batch.firstRow(b) + from) * batch.width(),
          length - from);
      worst = Math.max(worst, Math.max(Tolerances.relativeError(want.get("logits"),
          floats(logits)), Tolerances.relativeError(want.get("scores"),
          floats(head.scores(logits)))));
      if (want.get("logits").size() > 1) {
        assertEquals(want.get("label").asText(), head.label(logits), c + " " + want.get("id"));
      }
    }
    System.out.printf("%s: worst relative error of logits and scores %.2e%n", c, worst);
    assertTrue(worst <= LOGITS, c + ": logits and scores " + worst);
  }

  /** What a subclass checks of each case's model as loaded: here, nothing more. */
  void loaded(Case c, EncoderModel model) {}

  /**
   * A case's folder read with its task, its weights loaded in float32 and held to the shapes
   * config.json states and to the parameters its files store.
   */
  private record Loaded(ModelFolder folder, EncoderModel model) {
    static Loaded of(Case c) {
      ModelFolder folder = ModelFolder.read(c.folder().toAbsolutePath());
      if (!c.task().isEmpty()) {
        folder = folder.withTask(c.task());
      }
      FolderWeights loaded = WeightsLoader.load(folder, AskedHead.NONE, Precision.FLOAT32);
      Shapes shapes = Shapes.of(folder.settings(), loaded.encoder());
      ModelFamily.Shape stated = folder.shape();
      assertEquals(stated.layers(), shapes.layers(), c + " layers");
      assertEquals(stated.width(), shapes.width(), c + " width");
      assertEquals(stated.heads(), shapes.heads(), c + " heads");
      assertEquals(stated.ffnWidth(), shapes.ffnWidth(), c + " feed-forward width");
      assertEquals(storedParameters(folder, loaded.leftOut()), loaded.parameters(),
          c + " parameters");
      return new Loaded(folder, loaded.model());
    }

    /** Each row's reference ids (and type ids) through the embedding layer and the encoder. */
    TokenBatch forward(JsonNode rows) {
      TokenEmbeddings embeddings = new TokenEmbeddings(model.embeddings(),
          folder.settings().architecture().norms().eps());
      TokenBatch batch = new TokenBatch(model.width(), 256);
      for (JsonNode row : rows) {
        int[] ids = GoldenCase.ints(row.get("input_ids"));
        assertEquals(-1, embeddings.firstIdOutside(ids), row.get("id").asText());
        embeddings.append(ids, row.has("token_type_ids")
            ? GoldenCase.ints(row.get("token_type_ids")) : new int[ids.length], batch);
      }
      new Encoder(folder.settings(), model.encoder()).forward(batch, AttentionSink.NONE);
      return batch;
    }
  }

  /**
   * The values the folder's files store in its checkpoint's tensors but those left out (pooler,
   * task heads, buffers of ids) and {@code lm_head}, and in its Dense modules' tensors.
   */
  private static long storedParameters(ModelFolder folder, List<String> leftOut) {
    long sum = 0;
    for (Path file : folder.weightFiles()) {
      SafetensorsFile tensors = SafetensorsFile.open(file);
      for (String name : tensors.names()) {
        if (!leftOut.contains(name) && !name.equals("lm_head.weight")) {
          sum += tensors.info(name).elementCount();
        }
      }
    }
    for (Path module : folder.dense()) {
      SafetensorsFile tensors = SafetensorsFile.open(module.resolve("model.safetensors"));
      for (String name : tensors.names()) {
        sum += tensors.info(name).elementCount();
      }
    }
    return sum;
  }

  private static List<Float> floats(float[] values) {
    List<Float> out = new java.util.ArrayList<>(values.length);
    for (float v : values) {
      out.add(v);
    }
    return out;
  }

  private static double[] doubles(float[] values) {
    double[] out = new double[values.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = values[i];
    }
    return out;
  }
}
