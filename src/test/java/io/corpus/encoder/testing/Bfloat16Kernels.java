package io.corpus.encoder.testing;

import io.corpus.encoder.kernel.OneDnn;
import org.junit.jupiter.api.Assumptions;

/**
 * For tests that call oneDNN's bfloat16 products themselves: they run wherever oneDNN has
 * bfloat16 kernels (native, or emulated on AVX-512) and are skipped, with the reason, on
 * processors with AVX2 alone, where every bfloat16 primitive is unimplemented and the job
 * refuses bfloat16 up front (asserted by {@code PrecisionFoldersTest} and
 * {@code OlderProcessorTest}).
 */
public final class Bfloat16Kernels {
  private Bfloat16Kernels() {
  }

  /** Skips the calling test where oneDNN has no bfloat16 kernels. */
  public static void assumeAvailable() {
    Assumptions.assumeTrue(OneDnn.isa().bfloat16Kernels(), () -> "oneDNN has no bfloat16 "
        + "kernels on " + OneDnn.describe() + "; the job refuses bfloat16 there");
  }
}
