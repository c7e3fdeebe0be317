package io.corpus.encoder.kernel;

import com.sun.jna.Memory;
import io.corpus.encoder.kernel.Matmuls.Int8Gelu;
import io.corpus.encoder.kernel.Matmuls.Kind;
import io.corpus.encoder.kernel.Matmuls.NativeBuffer;
import java.nio.ByteBuffer;

/**
 * The products on oneDNN's matmul ({@link Matmuls}): bfloat16 and int8, and float32 where oneDNN
 * outruns the BLAS ({@link Float32Products}); for one thread, a block of rows at a time, and the
 * passes around them: inputs converted per batch (rounded to bfloat16,
 * or quantized per token to uint8: 0..255 where int8 dot products are exact, 0..127 where they
 * saturate pairs at int16, {@link Isa#exactInt8}), products read back with their bias, residual
 * or GELU. Its native buffers grow as batches need.
 *
 * <p>Not thread-safe: {@link #forThisThread} gives each thread its own.
 */
final class ReducedProducts {
  /** Rows of an int8 product done at a time. */
  static final int INT8_BLOCK = Integer.getInteger("encoder.int8-block", 256);
  /** Rows of a bfloat16 product done at a time. */
  static final int BFLOAT16_BLOCK = Integer.getInteger("encoder.bfloat16-block", 256);
  /** Rows of a float32 product on oneDNN done at a time. */
  static final int FLOAT32_BLOCK = 256;
  /**
   * An int8 block's rows rounded up to a multiple of this for oneDNN's GELU product, made for a
   * fixed row count: a few primitives per shape, not one per count.
   */
  static final int ROW_STEP = 32;
  private static final ThreadLocal<ReducedProducts> PER_THREAD =
      ThreadLocal.withInitial(ReducedProducts::new);

  private final Matmuls matmuls = new Matmuls();
  private final int activationMax;     // 255, or 127 without exact int8 dot products
  private final Int8Passes passes = Int8Passes.create();
  private final Bfloat16Passes bfloat16Passes = Bfloat16Passes.create();
  private final NativeBuffer source = new NativeBuffer();   // the converted input (n, K)
  private final NativeBuffer result = new NativeBuffer();   // (n, N), int32 or float32
  private final NativeBuffer hidden = new NativeBuffer();   // a feed-forward's (n, F)
  private final NativeBuffer biases = new NativeBuffer();   // a bias oneDNN adds (N), f32
  private final NativeBuffer rowScales = new NativeBuffer();   // (rows) token scales, f32
  private float[] tokenScales = new float[0];
  private int[] zeroPoints = new int[0];
  private float[] lows = new float[0];     // (n) each hidden row's range, for its quantizing
  private float[] highs = new float[0];

  private ReducedProducts() {
    activationMax = OneDnn.isa().exactInt8() ? 255 : 127;
  }

  static ReducedProducts forThisThread() {
    return PER_THREAD.get();
  }

  /** The largest uint8 an activation is quantized to on this processor. */
  static int activationMax() {
    return forThisThread().activationMax;
  }

  /**
   * y (n, N) = x (n, K) · Wᵀ + bias + addend with W int8 (N, K), {@link #INT8_BLOCK} rows at a
   * time: each block's activations, quantized values and int32 sums stay in the core's caches
   * from the quantizing pass to the rescaling one (done over the whole batch at once, the
   * passes streamed 60 MB through memory per product of MiniLM's batch and cost more than it).
   * The bias and the addend (a residual, or y itself to accumulate) are added as the sums are
   * rescaled; either may be null. With {@code gelu}, y = GELU(product + bias) (no addend),
   * applied by oneDNN where it can ({@link #geluOnOneDnn}).
   */
  void int8(int n, float[] x, int xOffset, Int8Matrix w, float[] bias, float[] addend,
      int addendOffset, float[] y, int yOffset, boolean gelu) {
    int outs = w.rows();
    for (int first = 0; first < n; first += INT8_BLOCK) {
      int rows = Math.min(INT8_BLOCK, n - first);
      int at = yOffset + first * outs;
      quantized(rows, w.cols(), w.stride(), x, xOffset + first * w.cols(), false);
      if (gelu && geluOnOneDnn(rows, w, bias)) {
        result.memory.read(0, y, at, rows * outs);
        continue;
      }
      matmuls.run(w.kind(), rows, source, w.onNative(), null, result);
      if (gelu) {
        passes.rescaleGelu(rows, outs, result.view, tokenScales, zeroPoints, w.scalesView(),
            w.zeroPointSums(), bias, y, at, null, null);
      } else {
        passes.rescale(rows, outs, result.view, tokenScales, zeroPoints, w.scalesView(),
            w.zeroPointSums(), bias, addend, addendOffset + first * outs, y, at);
      }
    }
  }

  /**
   * A feed-forward in int8: y (n, N) = GELU(x · Wᵀ + bias) · Vᵀ + outBias + addend, W (F, K)
   * and V (N, F), {@link #INT8_BLOCK} rows at a time: the same bits as {@link #int8} twice.
   * Where oneDNN applies the GELU as it stores the first product ({@link #geluOnOneDnn}), the
   * hidden rows stay in its buffer, where the second product's quantizing reads them; else they
   * go through {@code hidden} (at least a block's (rows, F)), the first product's rescaling
   * finding each row's range, so the second one's quantizing skips the pass that looks for it.
   */
  void int8FeedForward(int n, float[] x, int xOffset, Int8Matrix w, float[] bias, Int8Matrix v,
      float[] outBias, float[] addend, int addendOffset, float[] y, int yOffset,
      float[] hidden) {
    int k = w.cols();
    int width = w.rows();
    int outs = v.rows();
    for (int first = 0; first < n; first += INT8_BLOCK) {
      int rows = Math.min(INT8_BLOCK, n - first);
      quantized(rows, k, w.stride(), x, xOffset + first * k, false);
      if (geluOnOneDnn(rows, w, bias)) {
        growPerRow(rows);
        source.ensure((long) rows * v.stride());
        passes.quantizeNative(rows, width, result.view, activationMax, source.view, v.stride(),
            tokenScales, zeroPoints);
      } else {
        matmuls.run(w.kind(), rows, source, w.onNative(), null, result);
        passes.rescaleGelu(rows, width, result.view, tokenScales, zeroPoints, w.scalesView(),
            w.zeroPointSums(), bias, hidden, 0, lows, highs);
        quantized(rows, width, v.stride(), hidden, 0, true);
      }
      matmuls.run(v.kind(), rows, source, v.onNative(), null, result);
      passes.rescale(rows, outs, result.view, tokenScales, zeroPoints, v.scalesView(),
          v.zeroPointSums(), outBias, addend, addendOffset + first * outs, y,
          yOffset + first * outs);
    }
  }

  /**
   * GELU(product + bias) of the quantized source's n rows by w into the result buffer (n, N)
   * float32, oneDNN scaling the int32 sums, adding the bias and applying the GELU as it stores
   * them ({@link Matmuls#runInt8Gelu}, on the rows rounded up to {@link #ROW_STEP}: a primitive
   * per row count); false, and no product run, where the weights have no zero-point columns or
   * oneDNN no kernel for it.
   */
  private boolean geluOnOneDnn(int n, Int8Matrix w, float[] bias) {
    if (!w.hasZeroPointColumns()) {
      return false;
    }
    int outs = w.rows();
    int rows = padded(n);
    Memory scales = rowScales.ensure(4L * rows);
    scales.write(0, tokenScales, 0, n);
    scales.setMemory(4L * n, 4L * (rows - n), (byte) 0);   // rows past n: scaled to 0, unread
    if (bias != null) {
      biases.ensure(4L * outs).write(0, bias, 0, outs);
    }
    return matmuls.runInt8Gelu(new Int8Gelu(w.stride(), outs, rows, bias != null), source,
        w.onNative(), w.scalesOnNative(), rowScales, biases, result);
  }

  /** The per-token arrays grown to n rows. */
  private void growPerRow(int n) {
    if (tokenScales.length < n) {
      tokenScales = new float[n];
      zeroPoints = new int[n];
      lows = new float[n];
      highs = new float[n];
    }
  }

  /** n rows rounded up to {@link #ROW_STEP}. */
  private static int padded(int n) {
    return (n + ROW_STEP - 1) / ROW_STEP * ROW_STEP;
  }

  /**
   * The source holds rows (n, K) of x from xOffset quantized per token, each followed by its
   * zero point up to {@code stride} bytes (the weights' zero-point columns), their scales and
   * zero points in tokenScales and zeroPoints; {@code inRange}: each row's range is the one lows
   * and highs hold ({@link Int8Passes#quantizeInRange}), else it is looked for.
   */
  private void quantized(int n, int k, int stride, float[] x, int xOffset, boolean inRange) {
    growPerRow(n);
    source.ensure((long) padded(n) * stride);   // rows past n read by oneDNN, left unwritten
    if (inRange) {
      passes.quantizeInRange(n, k, x, xOffset, lows, highs, activationMax, source.view, stride,
          tokenScales, zeroPoints);
    } else {
      passes.quantize(n, k, x, xOffset, activationMax, source.view, stride, tokenScales,
          zeroPoints);
    }
  }

  /**
   * oneDNN's product alone, int8 or bfloat16, on n rows of whatever the source buffer holds,
   * for calibration: the passes around it (which the JIT compiles only once a job has run them
   * a while) are left out, and the result unread.
   */
  void productOnly(int n, OneDnnMatrix w) {
    source.ensure(2L * n * w.kind().k());     // two bytes a bfloat16 input, one a uint8 one
    matmuls.run(w.kind(), n, source, w.onNative(), null, result);
  }

  /** {@link Int8Passes#quantize}, on this JVM's implementation. */
  static void quantizeRows(int n, int k, float[] x, int xOffset, int qmax, byte[] out,
      float[] scales, int[] zeroPoints) {
    Int8Passes.create().quantize(n, k, x, xOffset, qmax, ByteBuffer.wrap(out), k, scales,
        zeroPoints);
  }

  /**
   * y (n, N) = x (n, K) · Wᵀ + bias + addend with W bfloat16 or float32 (N, K), x rounded to
   * bfloat16 or copied to native memory alike, summed in float32 by oneDNN, a block of rows at a
   * time ({@link #BFLOAT16_BLOCK}, {@link #FLOAT32_BLOCK}: each block's input and product stay
   * in the core's caches between the passes). The bias and the addend (a residual, or y itself
   * to accumulate) are added as the product is read back; either may be null. With {@code
   * gelu}, y = GELU(product + bias) (no addend).
   */
  void floating(int n, float[] x, int xOffset, OneDnnMatrix w, float[] bias, float[] addend,
      int addendOffset, float[] y, int yOffset, boolean gelu) {
    Kind kind = w.kind();
    int k = w.cols();
    int block = block(kind.src());
    for (int first = 0; first < n; first += block) {
      int rows = Math.min(block, n - first);
      input(rows, x, xOffset + first * k, k, kind.src());
      matmuls.run(kind, rows, source, w.onNative(), null, result);
      readBack(rows, w.rows(), bias, addend, addendOffset + first * w.rows(), y,
          yOffset + first * w.rows(), gelu);
    }
  }

  /**
   * A feed-forward in bfloat16 or float32 (W (F, K) and V (N, F) alike): y (n, N) = act(x · Wᵀ +
   * bias) · Vᵀ + outBias + addend. oneDNN adds the first product's bias and applies the
   * activation as it stores the product, in W's type, where the second product reads it: the
   * (n, F) hidden values never come back to the heap, nor go through a pass of their own.
   * {@code eltwise} is oneDNN's algorithm for the activation ({@link OneDnn#eltwise}).
   */
  void floatingFeedForward(int n, float[] x, int xOffset, OneDnnMatrix w, float[] bias,
      int eltwise, OneDnnMatrix v, float[] outBias, float[] addend, int addendOffset,
      float[] y, int yOffset) {
    int k = w.cols();
    int width = w.rows();
    int outs = v.rows();
    int type = w.kind().src();
    Kind in = new Kind(type, type, k, width, eltwise, bias != null);
    Kind out = v.kind();
    if (bias != null) {
      biases.ensure(4L * width).write(0, bias, 0, width);
    }
    int block = block(type);
    for (int first = 0; first < n; first += block) {
      int rows = Math.min(block, n - first);
      input(rows, x, xOffset + first * k, k, type);
      matmuls.run(in, rows, source, w.onNative(), bias == null ? null : biases, hidden);
      matmuls.run(out, rows, hidden, v.onNative(), null, result);
      readBack(rows, outs, outBias, addend, addendOffset + first * outs, y,
          yOffset + first * outs, false);
    }
  }

  /** Rows of a product done at a time for inputs of this type. */
  private static int block(int type) {
    return type == OneDnn.BF16 ? BFLOAT16_BLOCK : FLOAT32_BLOCK;
  }

  /** The source holds rows (n, K) of x from xOffset, rounded to bfloat16 or as they are. */
  private void input(int n, float[] x, int xOffset, int k, int type) {
    if (type == OneDnn.BF16) {
      source.ensure(2L * n * k);
      bfloat16Passes.round(n * k, x, xOffset, source.view);
    } else {
      source.ensure(4L * n * k).write(0, x, xOffset, n * k);
    }
  }

  /** y (n, N) from the float32 product in the result, its bias and addend added (or GELU'd). */
  private void readBack(int n, int outs, float[] bias, float[] addend, int addendOffset,
      float[] y, int yOffset, boolean gelu) {
    if (gelu) {
      bfloat16Passes.addGelu(n, outs, result.view, bias, y, yOffset);
    } else if (bias == null && addend == null) {
      result.memory.read(0, y, yOffset, n * outs);
    } else {
      bfloat16Passes.add(n, outs, result.view, bias, addend, addendOffset, y, yOffset);
    }
  }
}
