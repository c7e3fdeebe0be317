package io.corpus.encoder.kernel;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;
import java.util.Random;

/**
 * The attention products (S = Q_h K_hᵀ / √D and P_h V_h, every head of one sequence) in float32,
 * as the encoder runs them (OpenBLAS's sgemm a head at a time, {@code HeadAttention.full}), and
 * in bfloat16 through oneDNN's batched matmul (Q, K, V and the softmax weights P rounded to
 * bfloat16 as PyTorch rounds them, float32 accumulation, all heads in one call, on the (T, H·D)
 * rows as the encoder holds them), and the same batched products in float32 on oneDNN (the
 * library the long documents' tiles could use in place of OpenBLAS): the time of
 * each, that of the roundings the bfloat16 one needs, the share of a whole layer's products the
 * attention ones are at that length, and each one's error against float64.
 *
 * <p>Usage: jobs/benchmarks/bench-attention-products [--lengths "40 128 512 2048"] [--heads 12]
 * [--head-width 64] [--ffn 3072] [--seconds 2]. One thread; needs a processor oneDNN runs
 * bfloat16 on.
 */
public final class AttentionProductsBench {
  private static final Elementwise MATH = Elementwise.INSTANCE;
  private static final int TAG_ABC = 4;   // (H, T, T) scores stored as they read
  private static final int TAG_BAC = 16;  // (H, T, D) stored as (T, H, D): the rows of Q, V, context
  private static final int TAG_CAB = 18;  // (H, D, T) stored as (T, H, D): K's rows as the weights

  private final OneDnn.Api api = OneDnn.api();
  private final Pointer engine = OneDnn.engine();
  private final Matmuls matmuls = new Matmuls();   // its stream and memory helpers

  public static void main(String[] args) {
    String lengths = "40 128 512 2048";
    int heads = 12;
    int d = 64;
    int ffn = 3072;
    double seconds = 2;
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--lengths" -> lengths = args[i + 1];
        case "--heads" -> heads = Integer.parseInt(args[i + 1]);
        case "--head-width" -> d = Integer.parseInt(args[i + 1]);
        case "--ffn" -> ffn = Integer.parseInt(args[i + 1]);
        case "--seconds" -> seconds = Double.parseDouble(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (Precision.BFLOAT16.refusal().isPresent()) {
      System.out.println("bfloat16 does not run here: " + Precision.BFLOAT16.refusal().get());
      return;
    }
    System.out.printf("oneDNN %s; OpenBLAS sgemm %s; H = %d, D = %d, F = %d, one thread%n",
        OneDnn.describe(), RowMajorBlas.implementation(), heads, d, ffn);
    AttentionProductsBench bench = new AttentionProductsBench();
    for (String t : lengths.trim().split("\\s+")) {
      bench.measure(Integer.parseInt(t), heads, d, ffn, seconds);
    }
  }

  private void measure(int t, int heads, int d, int ffn, double seconds) {
    int width = heads * d;
    Random random = new Random(7);
    float[] q = gaussian(random, t * width);
    float[] k = gaussian(random, t * width);
    float[] v = gaussian(random, t * width);
    double[] exact = reference(q, k, v, t, heads, d);
    float scale = (float) (1 / Math.sqrt(d));

    float[] scores = new float[t * t];
    float[] context = new float[t * width];
    Runnable float32 = () -> {
      for (int h = 0; h < heads; h++) {
        RowMajorBlas.gemm(false, true, t, t, d, scale, q, h * d, width, k, h * d, width, 0f,
            scores, 0, t);
        softmaxRows(scores, 0, t, t);
        RowMajorBlas.gemm(false, false, t, d, t, 1f, scores, 0, t, v, h * d, width, 0f, context,
            h * d, width);
      }
    };
    float32.run();
    double float32Error = maxError(context, exact, t, heads, d);

    Bfloat16Passes passes = Bfloat16Passes.create();
    Memory qb = new Memory(2L * t * width);
    Memory kb = new Memory(2L * t * width);
    Memory vb = new Memory(2L * t * width);
    Memory sb = new Memory(4L * heads * t * t);
    Memory pb = new Memory(2L * heads * t * t);
    Memory ob = new Memory(4L * t * width);
    ByteBuffer qv = view(qb);
    ByteBuffer kv = view(kb);
    ByteBuffer vv = view(vb);
    ByteBuffer pv = view(pb);
    float[] scaledQ = new float[t * width];
    float[] s = new float[heads * t * t];
    float[] o = new float[t * width];
    long[] htd = {heads, t, d};
    long[] hdt = {heads, d, t};
    long[] htt = {heads, t, t};
    Pointer scoresProduct = primitive(OneDnn.BF16, htd, TAG_BAC, hdt, TAG_CAB, htt, TAG_ABC);
    Pointer valuesProduct = primitive(OneDnn.BF16, htt, TAG_ABC, htd, TAG_BAC, htd, TAG_BAC);
    Runnable[] products = {
      () -> run(OneDnn.BF16, scoresProduct, htd, TAG_BAC, qb, hdt, TAG_CAB, kb, htt, TAG_ABC, sb),
      () -> run(OneDnn.BF16, valuesProduct, htt, TAG_ABC, pb, htd, TAG_BAC, vb, htd, TAG_BAC,
          ob)};
    // the same two batched products in float32 on oneDNN, every input float32 in native memory
    Memory qf = floats(q);
    Memory kf = floats(k);
    Memory vf = floats(v);
    Memory pf = new Memory(4L * heads * t * t);
    Pointer scoresF32 = primitive(OneDnn.F32, htd, TAG_BAC, hdt, TAG_CAB, htt, TAG_ABC);
    Pointer valuesF32 = primitive(OneDnn.F32, htt, TAG_ABC, htd, TAG_BAC, htd, TAG_BAC);
    Runnable oneDnnFloat32 = () -> {
      run(OneDnn.F32, scoresF32, htd, TAG_BAC, qf, hdt, TAG_CAB, kf, htt, TAG_ABC, pf);
      run(OneDnn.F32, valuesF32, htt, TAG_ABC, pf, htd, TAG_BAC, vf, htd, TAG_BAC, ob);
    };
    Runnable bfloat16 = () -> {
      // 1/√D applied to Q as it is rounded (the encoder would fold it into Q's projection)
      System.arraycopy(q, 0, scaledQ, 0, scaledQ.length);
      MATH.scale(scaledQ, 0, scaledQ.length, scale);
      passes.round(t * width, scaledQ, 0, qv);
      passes.round(t * width, k, 0, kv);
      passes.round(t * width, v, 0, vv);
      products[0].run();
      sb.read(0, s, 0, s.length);
      softmaxRows(s, 0, heads * t, t);
      passes.round(s.length, s, 0, pv);
      products[1].run();
    };
    bfloat16.run();
    ob.read(0, o, 0, o.length);
    double bfloat16Error = maxError(o, exact, t, heads, d);

    double f32 = time(float32, seconds);
    double b16 = time(bfloat16, seconds);
    double b16Products = time(() -> {
      products[0].run();
      products[1].run();
    }, seconds);
    double f32Products = time(() -> {
      for (int h = 0; h < heads; h++) {
        RowMajorBlas.gemm(false, true, t, t, d, scale, q, h * d, width, k, h * d, width, 0f,
            scores, 0, t);
        RowMajorBlas.gemm(false, false, t, d, t, 1f, scores, 0, t, v, h * d, width, 0f, context,
            h * d, width);
      }
    }, seconds);
    double f32OneDnn = time(oneDnnFloat32, seconds);
    double attentionFlops = 4.0 * t * t * width;
    double linearFlops = 2.0 * t * (4.0 * width * width + 2.0 * width * ffn);
    System.out.printf(Locale.ROOT, "T = %5d: attention products %.1f %% of the layer's FLOPs;"
            + " products alone float32 %.3f ms (%.0f GFLOP/s), bfloat16 %.3f ms (%.0f GFLOP/s),"
            + " %.2fx; with softmax and roundings float32 %.3f ms, bfloat16 %.3f ms, %.2fx;"
            + " largest error against float64: float32 %.1e, bfloat16 %.1e%n",
        t, 100 * attentionFlops / (attentionFlops + linearFlops), f32Products * 1e3,
        attentionFlops / f32Products / 1e9, b16Products * 1e3,
        attentionFlops / b16Products / 1e9, f32Products / b16Products, f32 * 1e3, b16 * 1e3,
        f32 / b16, float32Error, bfloat16Error);
    System.out.printf(Locale.ROOT, "T = %5d: products alone in float32 on oneDNN, all heads in "
            + "one batched call: %.3f ms (%.0f GFLOP/s), %.2fx OpenBLAS head by head%n", t,
        f32OneDnn * 1e3, attentionFlops / f32OneDnn / 1e9, f32Products / f32OneDnn);
  }

  /** softmax(Q_h K_hᵀ / √D) V_h in float64, the context (T, H·D). */
  private static double[] reference(float[] q, float[] k, float[] v, int t, int heads, int d) {
    int width = heads * d;
    double[] out = new double[t * width];
    double[] row = new double[t];
    for (int h = 0; h < heads; h++) {
      for (int i = 0; i < t; i++) {
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j < t; j++) {
          double dot = 0;
          for (int c = 0; c < d; c++) {
            dot += (double) q[i * width + h * d + c] * k[j * width + h * d + c];
          }
          row[j] = dot / Math.sqrt(d);
          max = Math.max(max, row[j]);
        }
        double sum = 0;
        for (int j = 0; j < t; j++) {
          row[j] = Math.exp(row[j] - max);
          sum += row[j];
        }
        for (int j = 0; j < t; j++) {
          for (int c = 0; c < d; c++) {
            out[i * width + h * d + c] += row[j] / sum * v[j * width + h * d + c];
          }
        }
      }
    }
    return out;
  }

  private static double maxError(float[] got, double[] exact, int t, int heads, int d) {
    double worst = 0;
    for (int i = 0; i < t * heads * d; i++) {
      worst = Math.max(worst, Math.abs(got[i] - exact[i]));
    }
    return worst;
  }

  /** Each row of {@code rows} scores made its softmax, by the encoder's element-wise passes. */
  private static void softmaxRows(float[] s, int offset, int rows, int cols) {
    for (int r = 0; r < rows; r++) {
      int base = offset + r * cols;
      float sum = MATH.expShifted(s, base, cols, MATH.max(s, base, cols));
      MATH.scale(s, base, cols, 1f / sum);
    }
  }

  private static ByteBuffer view(Memory memory) {
    return memory.getByteBuffer(0, memory.size()).order(ByteOrder.nativeOrder());
  }

  private Pointer primitive(int type, long[] src, int srcTag, long[] weights, int weightTag,
      long[] dst, int dstTag) {
    Pointer srcDesc = matmuls.desc(src, type, srcTag);
    Pointer weightDesc = matmuls.desc(weights, type, weightTag);
    Pointer dstDesc = matmuls.desc(dst, OneDnn.F32, dstTag);
    PointerByReference ref = new PointerByReference();
    OneDnn.check(api.dnnl_matmul_primitive_desc_create(ref, engine, srcDesc, weightDesc, null,
        dstDesc, null), "batched matmul");
    Pointer pd = ref.getValue();
    OneDnn.check(api.dnnl_primitive_create(ref, pd), "dnnl_primitive_create");
    api.dnnl_primitive_desc_destroy(pd);
    matmuls.destroyDescs(srcDesc, weightDesc, dstDesc);
    return ref.getValue();
  }

  private void run(int type, Pointer primitive, long[] src, int srcTag, Memory srcData,
      long[] weights, int weightTag, Memory weightData, long[] dst, int dstTag,
      Memory dstData) {
    Pointer[] descs = {matmuls.desc(src, type, srcTag),
        matmuls.desc(weights, type, weightTag), matmuls.desc(dst, OneDnn.F32, dstTag)};
    Pointer a = matmuls.memory(descs[0], srcData);
    Pointer b = matmuls.memory(descs[1], weightData);
    Pointer c = matmuls.memory(descs[2], dstData);
    matmuls.execute(primitive, a, b, c, null);
    matmuls.destroy(a, b, c);
    matmuls.destroyDescs(descs);
  }

  private static Memory floats(float[] values) {
    Memory memory = new Memory(4L * values.length);
    memory.write(0, values, 0, values.length);
    return memory;
  }

  private static float[] gaussian(Random random, int n) {
    float[] x = new float[n];
    for (int i = 0; i < n; i++) {
      x[i] = (float) random.nextGaussian();
    }
    return x;
  }

  /** Seconds per call: warmed, then as many calls as fit in {@code seconds}. */
  private static double time(Runnable r, double seconds) {
    for (int i = 0; i < 3; i++) {
      r.run();
    }
    long start = System.nanoTime();
    int calls = 0;
    do {
      r.run();
      calls++;
    } while (System.nanoTime() - start < seconds * 1e9);
    return (System.nanoTime() - start) / 1e9 / calls;
  }
}
