package io.corpus.encoder.kernel;

import com.sun.jna.Pointer;

/**
 * Float32 rows rounded to bfloat16 in native memory, where oneDNN reads them: a layer's fused
 * q, k, v buffer for {@link Bfloat16Tiles}, element i of the floats at element i here. Grown as
 * batches need; not thread-safe while it is filled, read by any number of threads after.
 */
public final class Bfloat16Rows {
  private final Matmuls.NativeBuffer bits = new Matmuls.NativeBuffer();
  private final Bfloat16Passes passes = Bfloat16Passes.create();

  /** Room for {@code elements} values, before any is rounded (growing loses what is held). */
  public void reserve(long elements) {
    bits.ensure(2 * elements);
  }

  /**
   * Elements [from, from + count) of x rounded to bfloat16 at the same elements here, within
   * what {@link #reserve} made room for.
   */
  public void round(float[] x, int from, int count) {
    if (2L * ((long) from + count) > bits.memory.size()) {
      throw new IllegalStateException("Rows of " + ((long) from + count) + " values do not fit "
          + "the " + bits.memory.size() / 2 + " reserved");
    }
    passes.round(count, x, from, bits.view.slice(2 * from, 2 * count)
        .order(java.nio.ByteOrder.nativeOrder()));
  }

  /** Where element {@code element} is. */
  Pointer at(long element) {
    return bits.memory.share(2 * element);
  }
}
