package io.corpus.encoder.kernel;

/**
 * How a batch of {@code n} rows is cut into the blocks its weight products take at a time, which
 * the task's cores then share ({@link ComputeThreads.Task#run}). The cut depends on {@code n} and
 * the matrix's {@link Matrix#blockRows} only, never on the threads, so the vectors are the same
 * bit for bit however many cores took the blocks (the BLAS's floats depend on where a product is
 * cut). The blocks are of equal rows (a multiple of {@value #ALIGN}, the last one shorter), and
 * a batch that fits in one block but has at least {@code 2 ×} {@value #SPLIT_ROWS} rows is cut in
 * two: one document of 1,000 to 2,000 tokens, or a job's last batch, then multiplies on two
 * cores where a slot is idle, and costs a little where none is (a product of half the rows runs
 * slightly slower).
 *
 * @param n the batch's rows
 * @param rows each block's rows but the last's
 */
public record RowBlocks(int n, int rows) {
  /** The fewest rows of a half, below which a batch stays one block. */
  public static final int SPLIT_ROWS = 256;
  /** Blocks start at multiples of this many rows (the kernels' row tile). */
  static final int ALIGN = 16;

  /** {@code n} rows in blocks of at most {@code most} rows. */
  public static RowBlocks of(int n, int most) {
    if (most < 1) {
      throw new IllegalArgumentException("a block has at least one row, got " + most);
    }
    int blocks = Math.max(1, (n + most - 1) / most);
    if (blocks == 1 && n >= 2 * SPLIT_ROWS) {
      blocks = 2;
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
