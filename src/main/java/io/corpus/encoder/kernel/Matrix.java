package io.corpus.encoder.kernel;

import java.io.Serializable;

/**
 * A weight matrix W (rows, cols) in PyTorch's (out, in) layout, held in the precision its
 * products run in: a linear layer computes {@code Y (+)= X·Wᵀ} with X (n, cols) and Y (n, rows).
 * Immutable; broadcast to executors in its own form (a bfloat16 matrix is half the bytes of a
 * float32 one, an int8 one a quarter).
 */
public sealed interface Matrix extends Serializable
    permits Float32Matrix, OneDnnMatrix {
  /**
   * Rows a float32 or bfloat16 product takes at once where a batch is cut into blocks (the
   * feed-forward's, whose (rows, F) hidden buffer is 24 MB for BERT-base). With BERT-base
   * shapes, 2048 beat 1024 by 2.6 % of layer time over six alternating jobs/benchmarks/bench
   * pairs (the products' rate still grows with their rows); 4096 doubles the buffer for no
   * measurable gain, 512 lost 3 %. A batch is cut into blocks of equal rows up to this
   * ({@link RowBlocks}).
   */
  int BLOCK_ROWS = 2048;

  /** Output features: Y's width. */
  int rows();

  /** Input features: X's width. */
  int cols();

  Precision precision();

  /**
   * {@code y (n, rows) = [y +] x (n, cols) · Wᵀ}, row-major, with row strides cols and rows;
   * with {@code accumulate}, y already holds what is added to (a bias, a residual).
   */
  void multiply(int n, float[] x, int xOffset, float[] y, int yOffset, boolean accumulate);

  /**
   * A linear layer: {@code y (n, rows) = x (n, cols) · Wᵀ + bias + addend}, the bias (width
   * rows) and the addend (a residual, row-major with y's stride; it may be y itself at the same
   * offset) each left out when null. Here the bias and addend are written into y and the
   * product added to them; a precision whose product ends in a pass of its own adds them there.
   */
  default void linear(int n, float[] x, int xOffset, float[] bias, float[] addend,
      int addendOffset, float[] y, int yOffset) {
    if (addend == null && bias == null) {
      multiply(n, x, xOffset, y, yOffset, false);
      return;
    }
    if (addend == null) {
      Vectors.fillRows(y, yOffset, n, bias);
    } else if (bias == null) {
      if (addend != y || addendOffset != yOffset) {
        System.arraycopy(addend, addendOffset, y, yOffset, n * rows());
      }
    } else {
      Vectors.copyPlusBias(addend, addendOffset, y, yOffset, n, bias);
    }
    multiply(n, x, xOffset, y, yOffset, true);
  }

  /**
   * A feed-forward's first layer: {@code y (n, rows) = act(x (n, cols) · Wᵀ + bias)}, written
   * from y's first value. Here the product, then the bias and activation in a pass of their own
   * ({@link Activation#applyWithBias}).
   */
  default void activatedLinear(int n, float[] x, int xOffset, float[] bias,
      Activation activation, float[] y) {
    multiply(n, x, xOffset, y, 0, false);
    activation.applyWithBias(y, n, bias);
  }

  /**
   * A feed-forward on this matrix W (F, K) and {@code second} V (N, F): {@code y (n, N) =
   * act(x · Wᵀ + bias) · Vᵀ + secondBias + addend}, as {@link #activatedLinear} into {@code
   * hidden} (n, F) then {@code second}'s {@link #linear}; a precision whose products can hand
   * the activation from one to the other in their own form does so, and leaves hidden alone.
   */
  default void feedForward(int n, float[] x, int xOffset, float[] bias, Activation activation,
      Matrix second, float[] secondBias, float[] addend, int addendOffset, float[] y,
      int yOffset, float[] hidden) {
    activatedLinear(n, x, xOffset, bias, activation, hidden);
    second.linear(n, hidden, 0, secondBias, addend, addendOffset, y, yOffset);
  }

  /**
   * The most rows of input best multiplied at once where the caller cuts a batch into blocks
   * ({@link RowBlocks}): as many as make the product efficient while its output stays in cache
   * for the passes that follow it.
   */
  default int blockRows() {
    return BLOCK_ROWS;
  }

  /** The values as float32 (dequantized: what the products multiply by), (rows, cols). */
  float[] floats();

  /** Row {@code r}'s values as float32 (as {@link #floats()} holds them), into {@code out}. */
  void row(int r, float[] out, int offset);

  /** Bytes the weights take. */
  long bytes();

  /** A float32 matrix of (rows, cols) values, row-major. */
  static Matrix of(float[] values, int rows, int cols) {
    return new Float32Matrix(values, rows, cols);
  }

  /**
   * The rows of {@code parts} one after the other (they share their column count): bfloat16
   * matrices stay bfloat16 ({@link Bfloat16Matrix#stack}), anything else is stacked in float32.
   */
  static Matrix stackRows(Matrix... parts) {
    boolean bfloat16 = true;
    int rows = 0;
    for (Matrix part : parts) {
      bfloat16 &= part instanceof Bfloat16Matrix;
      rows += part.rows();
    }
    if (bfloat16) {
      return Bfloat16Matrix.stack(java.util.Arrays.copyOf(parts, parts.length,
          Bfloat16Matrix[].class));
    }
    int cols = parts[0].cols();
    float[] values = new float[rows * cols];
    int at = 0;
    for (Matrix part : parts) {
      if (part.cols() != cols) {
        throw new IllegalArgumentException("Stacked matrices have " + cols + " and "
            + part.cols() + " columns");
      }
      for (int r = 0; r < part.rows(); r++, at += cols) {
        part.row(r, values, at);
      }
    }
    return of(values, rows, cols);
  }

  /**
   * This matrix's float32 values in {@code precision}, where its products run: a float32 matrix
   * stays itself on the BLAS or moves to native memory for oneDNN ({@link Float32Products});
   * any other matrix already in {@code precision} returns itself.
   */
  default Matrix in(Precision precision) {
    if (this instanceof Float32Matrix f && precision == Precision.FLOAT32) {
      return Float32Products.chosen().place(f);
    }
    if (precision == precision()) {
      return this;
    }
    return switch (precision) {
      case FLOAT32 -> of(floats(), rows(), cols()).in(precision);
      case BFLOAT16 -> Bfloat16Matrix.round(floats(), rows(), cols());
      case INT8 -> Int8Matrix.quantize(floats(), rows(), cols());
    };
  }
}
