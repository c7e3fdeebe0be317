package io.corpus.encoder.kernel;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;

/**
 * The bfloat16 and int8 products on oneDNN's matmul, for one thread: its stream, its primitives
 * (one per kind and shape, made on first use with the row count left to run time, so any batch
 * reuses them; a thread's own, so two tasks never share a primitive's scratch space) and its
 * native buffers, grown as batches need. Inputs are converted here, per batch: rounded to
 * bfloat16, or quantized per token to uint8 (0..255 where int8 dot products are exact, 0..127
 * where they saturate pairs at int16: {@link Isa#exactInt8}).
 *
 * <p>Not thread-safe: {@link #forThisThread} gives each thread its own.
 */
final class ReducedProducts {
  /** Rows of an int8 product done at a time. */
  static final int INT8_BLOCK = Integer.getInteger("encoder.int8-block", 256);
  private static final ThreadLocal<ReducedProducts> PER_THREAD =
      ThreadLocal.withInitial(ReducedProducts::new);

  private final OneDnn.Api api = OneDnn.api();
  private final Pointer engine = OneDnn.engine();
  private final Pointer stream;
  private final int activationMax;     // 255, or 127 without exact int8 dot products
  private final Map<Long, Pointer> primitives = new HashMap<>();
  private final Int8Passes passes = Int8Passes.create();
  private Memory source = new Memory(1);   // the converted input (n, K)
  private Memory result = new Memory(1);   // the product (n, N), int32 or float32
  private byte[] quantized = new byte[0];  // (n, K) on the heap, before its copy
  private short[] rounded = new short[0];  // (n, K) bfloat16
  private float[] floats = new float[0];   // (n, N) float32
  private float[] tokenScales = new float[0];
  private int[] zeroPoints = new int[0];
  private final Memory args = new Memory(48);   // three dnnl_exec_arg_t {int arg; void* memory}

  private ReducedProducts() {
    OneDnn.singleThreaded();
    PointerByReference ref = new PointerByReference();
    OneDnn.check(api.dnnl_stream_create(ref, engine, 1), "dnnl_stream_create");
    stream = ref.getValue();
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
   * rescaled; either may be null. With {@code gelu}, y = GELU(product + bias) (no addend).
   */
  void int8(int n, float[] x, int xOffset, Int8Matrix w, float[] bias, float[] addend,
      int addendOffset, float[] y, int yOffset, boolean gelu) {
    for (int first = 0; first < n; first += INT8_BLOCK) {
      int rows = Math.min(INT8_BLOCK, n - first);
      int8Block(rows, x, xOffset + first * w.cols(), w, bias, addend,
          addendOffset + first * w.rows(), y, yOffset + first * w.rows(), gelu);
    }
  }

  private void int8Block(int n, float[] x, int xOffset, Int8Matrix w, float[] bias,
      float[] addend, int addendOffset, float[] y, int yOffset, boolean gelu) {
    int k = w.cols();
    int outs = w.rows();
    if (quantized.length < n * k) {
      quantized = new byte[n * k];
    }
    if (tokenScales.length < n) {
      tokenScales = new float[n];
      zeroPoints = new int[n];
    }
    passes.quantize(n, k, x, xOffset, activationMax, quantized, tokenScales, zeroPoints);
    source = atLeast(source, (long) n * k);
    source.write(0, quantized, 0, n * k);
    result = atLeast(result, 4L * n * outs);
    run(OneDnn.U8, OneDnn.S8, OneDnn.S32, n, k, outs, w.onNative());
    ByteBuffer sums = result.getByteBuffer(0, 4L * n * outs).order(ByteOrder.nativeOrder());
    if (gelu) {
      passes.rescaleGelu(n, outs, sums, tokenScales, zeroPoints, w.scalesView(), w.rowSums(),
          bias, y, yOffset);
    } else {
      passes.rescale(n, outs, sums, tokenScales, zeroPoints, w.scalesView(), w.rowSums(), bias,
          addend, addendOffset, y, yOffset);
    }
  }

  /**
   * oneDNN's int8 product alone on n rows of whatever the source buffer holds, for calibration:
   * the sums are left unread.
   */
  void int8SumsOnly(int n, Int8Matrix w) {
    source = atLeast(source, (long) n * w.cols());
    result = atLeast(result, 4L * n * w.rows());
    run(OneDnn.U8, OneDnn.S8, OneDnn.S32, n, w.cols(), w.rows(), w.onNative());
  }

  /** {@link Int8Passes#quantize}, on this JVM's implementation. */
  static void quantizeRows(int n, int k, float[] x, int xOffset, int qmax, byte[] out,
      float[] scales, int[] zeroPoints) {
    Int8Passes.create().quantize(n, k, x, xOffset, qmax, out, scales, zeroPoints);
  }

  /** y (n, N) [+]= x (n, K) · Wᵀ with W bfloat16 (N, K), x rounded to bfloat16. */
  void bfloat16(int n, float[] x, int xOffset, Bfloat16Matrix w, float[] y, int yOffset,
      boolean accumulate) {
    if (n == 0) {
      return;
    }
    int k = w.cols();
    int outs = w.rows();
    if (rounded.length < n * k) {
      rounded = new short[n * k];
    }
    for (int i = 0; i < n * k; i++) {
      rounded[i] = Bfloat16Matrix.toBfloat16(x[xOffset + i]);
    }
    source = atLeast(source, 2L * n * k);
    source.write(0, rounded, 0, n * k);
    result = atLeast(result, 4L * n * outs);
    run(OneDnn.BF16, OneDnn.BF16, OneDnn.F32, n, k, outs, w.onNative());
    if (!accumulate) {
      result.read(0, y, yOffset, n * outs);
      return;
    }
    if (floats.length < n * outs) {
      floats = new float[n * outs];
    }
    result.read(0, floats, 0, n * outs);
    for (int i = 0; i < n * outs; i++) {
      y[yOffset + i] += floats[i];
    }
  }

  /** result (n, N) = source (n, K) · weights (K, N), the weights stored as (N, K). */
  private void run(int srcType, int weightType, int dstType, int n, int k, int outs,
      Memory weights) {
    Pointer primitive = primitive(srcType, weightType, dstType, k, outs);
    Pointer srcDesc = desc(new long[] {n, k}, srcType, OneDnn.TAG_AB);
    Pointer weightDesc = desc(new long[] {k, outs}, weightType, OneDnn.TAG_BA);
    Pointer dstDesc = desc(new long[] {n, outs}, dstType, OneDnn.TAG_AB);
    Pointer src = memory(srcDesc, source);
    Pointer wei = memory(weightDesc, weights);
    Pointer dst = memory(dstDesc, result);
    try {
      args.setInt(0, OneDnn.ARG_SRC);
      args.setPointer(8, src);
      args.setInt(16, OneDnn.ARG_WEIGHTS);
      args.setPointer(24, wei);
      args.setInt(32, OneDnn.ARG_DST);
      args.setPointer(40, dst);
      OneDnn.check(api.dnnl_primitive_execute(primitive, stream, 3, args), "matmul");
      OneDnn.check(api.dnnl_stream_wait(stream), "dnnl_stream_wait");
    } finally {
      for (Pointer m : new Pointer[] {src, wei, dst}) {
        api.dnnl_memory_destroy(m);
      }
      for (Pointer d : new Pointer[] {srcDesc, weightDesc, dstDesc}) {
        api.dnnl_memory_desc_destroy(d);
      }
    }
  }

  /** The matmul of (?, K) by (K, N) in these types, made once per thread. */
  private Pointer primitive(int srcType, int weightType, int dstType, int k, int outs) {
    long key = ((long) srcType << 56) | ((long) k << 28) | outs;
    Pointer primitive = primitives.get(key);
    if (primitive != null) {
      return primitive;
    }
    Pointer src = desc(new long[] {OneDnn.RUNTIME_DIM, k}, srcType, OneDnn.TAG_AB);
    Pointer wei = desc(new long[] {k, outs}, weightType, OneDnn.TAG_BA);
    Pointer dst = desc(new long[] {OneDnn.RUNTIME_DIM, outs}, dstType, OneDnn.TAG_AB);
    PointerByReference ref = new PointerByReference();
    try {
      OneDnn.check(api.dnnl_matmul_primitive_desc_create(ref, engine, src, wei, null, dst,
          null), "matmul of (n, " + k + ") by (" + k + ", " + outs + ")");
      Pointer pd = ref.getValue();
      OneDnn.check(api.dnnl_primitive_create(ref, pd), "dnnl_primitive_create");
      api.dnnl_primitive_desc_destroy(pd);
      primitive = ref.getValue();
    } finally {
      for (Pointer d : new Pointer[] {src, wei, dst}) {
        api.dnnl_memory_desc_destroy(d);
      }
    }
    primitives.put(key, primitive);
    return primitive;
  }

  private Pointer desc(long[] dims, int type, int tag) {
    PointerByReference ref = new PointerByReference();
    OneDnn.check(api.dnnl_memory_desc_create_with_tag(ref, dims.length, dims, type, tag),
        "dnnl_memory_desc_create_with_tag");
    return ref.getValue();
  }

  private Pointer memory(Pointer desc, Memory data) {
    PointerByReference ref = new PointerByReference();
    OneDnn.check(api.dnnl_memory_create(ref, desc, engine, data), "dnnl_memory_create");
    return ref.getValue();
  }

  private static Memory atLeast(Memory m, long bytes) {
    return m.size() >= bytes ? m : new Memory(Math.max(bytes, m.size() + m.size() / 2));
  }
}
