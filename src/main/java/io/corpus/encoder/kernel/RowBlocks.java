package io.corpus.encoder.kernel;

/**
 * How a batch of {@code n} rows is cut into the blocks its weight products take at a time, which
 * the task's cores then share ({@link ComputeThreads.Task#run}). The cut depends on {@code n} and
 * the matrix's {@link Matrix#blockRows} only, never on the threads, so the vectors are the same
 * bit for bit however many cores took the blocks (the BLAS's floats depend on where a product is
 * cut). The blocks are of equal rows (rounded up to {@value #ALIGN}, the last one shorter), and
 * as many as the most rows need, made even where each block still has {@value #SPLIT_ROWS} rows:
 * two cores then take equal shares. One document of 1,000 to 2,000 tokens, or a job's last batch,
 * multiplies on two cores where a slot is idle instead of one, 5,000 rows take 2,528 and 2,472
 * a core instead of 2,952 (2,048 + 904) and 2,048; where no slot is idle the products run a little
 * slower on blocks of fewer rows.
 *
 * @param n the batch's rows
 * @param rows each block's rows but the last's
 */
public record RowBlocks(int n, int rows) {
  /** The fewest rows of a block added to make the count even. */
  public static final int SPLIT_ROWS = 256;
  /**
   * Every block but the last holds a multiple of this many rows where the most allows (the
   * blocks of 2,048 and 256 rows do), so none ends in a part of the kernels' register tiles (4 to
   * 16 rows in the x86 ones); its own effect is not measured.
   */
  static final int ALIGN = 16;

  /** {@code n} rows in blocks of at most {@code most} rows. */
  public static RowBlocks of(int n, int most) {
    if (most < 1) {
      throw new IllegalArgumentException("a block has at least one row, got " + most);
    }
    int blocks = Math.max(1, (n + most - 1) / most);
    if (blocks % 2 == 1 && n >= (blocks + 1) * SPLIT_ROWS) {
      blocks++;
    }
    int even = (n + blocks - 1) / blocks;
    int aligned = (even + ALIGN - 1) / ALIGN * ALIGN;
    return new RowBlocks(n, Math.max(1, Math.min(most, aligned)));
  }

  public int count() {
    return (n + rows - 1) / rows;
  }

  /** The first row of block {@code i}. */
  public int first(int i) {
    return i * rows;
  }

  /** Block {@code i}'s rows. */
  public int rows(int i) {
    return Math.min(rows, n - first(i));
  }
}
