package io.corpus.encoder.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.model.WarmUp;
import io.corpus.encoder.weights.ModelFolder;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The warm-up pass a local job runs while Spark starts goes through every family's layers (an
 * encoder with absolute positions, one with rotary positions and a gated feed-forward, DeBERTa's
 * disentangled attention, decoders with grouped queries and sliding windows) without an error,
 * on as many synthetic tokens as it says: 96 / layers sequences of 32, at least 2.
 */
class WarmUpTest {
  private static final Path CASES = Path.of("src/test/resources");

  @Test
  void aPassRunsThroughEveryKindOfLayer() {
    for (String folder : new String[] {"bert-cases/whole-relu-deep",
        "modernbert-cases/modernbert-embedding", "deberta-cases/deberta-v3-embedding",
        "nomic-cases/nomic-embed", "qwen3-cases/qwen3-embedding", "gemma3-cases/gemma3-embedding",
        "mistral-cases/e5-mistral"}) {
      ModelFolder model = ModelFolder.read(CASES.resolve(folder));
      LoadedModel loaded = LoadedModel.fromFolder(model, model.settings());
      int layers = loaded.weights().encoder().layerCount();
      assertEquals(32 * Math.max(2, 96 / layers),
          WarmUp.run(loaded.settings(), loaded.weights().encoder()), folder);
    }
  }

  /** A JVM runs the pass once a precision: a later job's kernels are already compiled. */
  @Test
  void aPassRunsOnceAPrecision() {
    ModelFolder model = ModelFolder.read(CASES.resolve("bert-cases/whole-relu-deep"));
    LoadedModel loaded = LoadedModel.fromFolder(model, model.settings());
    Set<Precision> warmed = EnumSet.noneOf(Precision.class);
    int layers = loaded.weights().encoder().layerCount();
    assertEquals(32 * Math.max(2, 96 / layers),
        WarmUp.once(loaded.settings(), loaded.weights().encoder(), warmed));
    assertEquals(0, WarmUp.once(loaded.settings(), loaded.weights().encoder(), warmed));
    assertEquals(Set.of(Precision.FLOAT32), warmed);
    LoadedModel int8 = loaded.in(Precision.INT8);
    assertEquals(32 * Math.max(2, 96 / layers),
        WarmUp.once(int8.settings(), int8.weights().encoder(), warmed), "another precision");
  }
}
