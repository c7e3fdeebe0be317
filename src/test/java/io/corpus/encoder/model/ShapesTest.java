package io.corpus.encoder.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.weights.FolderWeights;
import io.corpus.encoder.weights.ModelFolder;
import io.corpus.encoder.weights.WeightsLoader;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The shape table against figures worked out by hand, and against the buffers the encoder
 * really holds after a batch, for a plain encoder (all-MiniLM-L6-v2), a grouped-query one with
 * a gated feed-forward (Qwen3) and one with post norms (Gemma3).
 */
class ShapesTest {
  @Test
  void multiplyAddsPerTokenAreTheHandCountedOnes() {
    // BERT-base: per layer 4·768² (q, k, v, out) + 2·768·3072 (feed-forward) + 2·768·128
    // (scores and weighted sum over 128 keys) = 7,274,496; 12 layers.
    Shapes bert = new Shapes(12, 768, 12, 12, 64, 3072, false, false, Matrix.BLOCK_ROWS);
    assertEquals(87_293_952, bert.multiplyAddsPerToken(128), 0);
    // Qwen3-0.6B: E 1024, 16 query heads and 8 KV heads of 128, F 3072 gated, 28 layers:
    // q, k, v 1024·(16 + 16)·128 = 4,194,304; out 2048·1024 = 2,097,152; feed-forward
    // 3·1024·3072 = 9,437,184; 2·2048·128 = 524,288 over 128 keys; 16,252,928 a layer.
    Shapes qwen3 = new Shapes(28, 1024, 16, 8, 128, 3072, true, false, Matrix.BLOCK_ROWS);
    assertEquals(455_081_984, qwen3.multiplyAddsPerToken(128), 0);
    assertEquals(4096, qwen3.qkvWidth());
    assertEquals(2048, qwen3.inner());
  }

  @Test
  void theEncodersBuffersAreWhatTheTableSays() {
    check(SharedModels.miniLm(), false, false);
    check(Path.of("src/test/resources/qwen3-cases/qwen3-embedding"), true, false);
    check(Path.of("src/test/resources/gemma3-cases/gemma3-embedding"), true, true);
  }

  private static void check(Path folder, boolean gated, boolean postNorms) {
    ModelFolder model = ModelFolder.read(folder);
    FolderWeights weights = WeightsLoader.load(model);
    Encoder encoder = new Encoder(model.settings(), weights.encoder());
    Shapes shapes = encoder.shapes();
    assertEquals(gated, shapes.gated(), folder.toString());
    assertEquals(postNorms, shapes.postNorms(), folder.toString());
    TokenBatch batch = new TokenBatch(model.shape().width(), 64);
    Random random = new Random(7);
    for (int length : new int[] {5, 9, 3}) {
      for (int p = 0; p < length; p++) {
        int at = batch.appendToken(p);
        for (int i = 0; i < model.shape().width(); i++) {
          batch.tokens()[at + i] = (float) random.nextGaussian();
        }
      }
      batch.endSequence();
    }
    encoder.forward(batch);
    assertEquals(shapes.bufferFloats(17), encoder.bufferFloats(), folder.toString());
  }
}
