package io.corpus.encoder.weights;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.kernel.Precision;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the weights take of the heap once read, from the checkpoint's headers before a tensor is
 * read, and the one-line refusal of weights larger than the heap.
 */
class WeightsMemoryTest {
  private static final Path GTE_QWEN2 = Path.of("src/test/resources/qwen2-cases/gte-qwen2");

  private static Checkpoint checkpoint(ModelFolder model) {
    return Checkpoint.of(model, model.family().keptPrefixes(false));
  }

  /** E = 32, F = 48, 2 layers, 4 heads on 2 KV heads of 8, q/k/v biases, V = 345. */
  @Test
  void theHeapHoldsFloat32LayersOrOneWhileItIsConvertedAndTheRest() {
    ModelFolder model = ModelFolder.read(GTE_QWEN2);
    long layer = 32 * 32 + 2 * 16 * 32 + (32 + 2 * 16) + 32 * 32 + 3 * 48 * 32 + 2 * 32;
    long other = 345 * 32 + 32;
    Checkpoint file = checkpoint(model);
    assertEquals(4 * (other + 2 * layer), WeightsMemory.heapBytes(file, "layers.",
        Precision.FLOAT32));
    assertEquals(4 * other + 4 * layer, WeightsMemory.heapBytes(file, "layers.",
        Precision.BFLOAT16), "one layer in float32 while it is converted; the layers native");
    assertEquals(4 * other + 4 * layer, WeightsMemory.heapBytes(file, "layers.",
        Precision.INT8));
  }

  @Test
  void weightsLargerThanTheHeapAreRefusedInOneLineSayingWhatToSet() {
    ModelFolder model = ModelFolder.read(GTE_QWEN2);
    WeightsMemory.refuseIfTooLarge(30_500_000_000L, 30_500_000_000L, model, Precision.FLOAT32);
    WeightsException e = assertThrows(WeightsException.class, () -> WeightsMemory
        .refuseIfTooLarge(30_500_000_000L, 4L << 30, model, Precision.FLOAT32));
    String said = e.getMessage();
    for (String part : List.of("the weights take 30.5 GB of heap as this job holds them "
        + "(model.precision = float32), more than the 4.3 GB heap of this JVM",
        "jobs/encode: ENCODER_HEAP=37g", "--driver-memory",
        "or set model.precision = bfloat16")) {
      assertTrue(said.contains(part), said);
    }
    assertTrue(!said.contains("\n"), said);
    e = assertThrows(WeightsException.class, () -> WeightsMemory.refuseIfTooLarge(
        16_000_000_000L, 4L << 30, model, Precision.BFLOAT16));
    assertTrue(!e.getMessage().contains("or set model.precision"), e.getMessage());
  }
}
