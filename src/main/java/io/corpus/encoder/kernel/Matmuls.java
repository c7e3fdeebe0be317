package io.corpus.encoder.kernel;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * oneDNN's matmul for one thread: its stream and its primitives, one per {@link Kind}, made on
 * first use with the row count left to run time, so any batch reuses them (a thread's own, so
 * two tasks never share a primitive's scratch space), and one per {@link Int8Gelu} (a row count
 * each), run on {@link NativeBuffer}s.
 *
 * <p>Not thread-safe: {@link ReducedProducts} keeps one per thread.
 */
final class Matmuls {
  private final OneDnn.Api api = OneDnn.api();
  private final Pointer engine = OneDnn.engine();
  private final Pointer stream;
  private final Map<Kind, Pointer> primitives = new HashMap<>();
  private final Map<Kind, Bound> bound = new HashMap<>();
  private final Map<Int8Gelu, GeluPrimitive> int8Gelus = new HashMap<>();
  private final Set<Int8Gelu> unsupported = new HashSet<>();
  private final Memory args = new Memory(16 * 8);   // dnnl_exec_arg_t {int arg; void* memory}s

  Matmuls() {
    OneDnn.singleThreaded();
    PointerByReference ref = new PointerByReference();
    OneDnn.check(api.dnnl_stream_create(ref, engine, 1), "dnnl_stream_create");
    stream = ref.getValue();
  }

  /**
   * A matmul: its source's type (the weights' is the same, or int8 under uint8), its
   * destination's, (?, K) by (K, N), and what oneDNN applies as it stores the product: a bias
   * (float32, width N) and an activation (oneDNN's eltwise algorithm, {@link OneDnn#eltwise};
   * 0 for none).
   */
  record Kind(int src, int dst, int k, int outs, int eltwise, boolean biased) {
    int weights() {
      return src == OneDnn.U8 ? OneDnn.S8 : src;
    }
  }

  /**
   * dst (n, N) = source (n, K) · weights (K, N) [+ bias, then the activation], the weights
   * stored as (N, K); dst is grown to hold it.
   */
  void run(Kind kind, int n, NativeBuffer source, Memory weights, NativeBuffer bias,
      NativeBuffer dst) {
    Pointer primitive = primitive(kind);
    dst.ensure((kind.dst() == OneDnn.BF16 ? 2L : 4L) * n * kind.outs());
    Bound memories = bound(kind, n);
    setHandle(memories.src(), source.memory);
    setHandle(memories.weights(), weights);
    setHandle(memories.dst(), dst.memory);
    if (bias != null) {
      setHandle(memories.bias(), bias.memory);
    }
    execute(primitive, memories.src(), memories.weights(), memories.dst(),
        bias == null ? null : memories.bias());
  }

  /**
   * A {@link Kind}'s memories for n rows, whose data handles each run sets: made again only when
   * the row count changes (most products run on full blocks of rows), where making and
   * destroying four descriptors and four memories per product took 3 % of an int8 job's task
   * time (oneDNN's allocations and JNA's).
   */
  private record Bound(int n, Pointer src, Pointer weights, Pointer dst, Pointer bias) {}

  private Bound bound(Kind kind, int n) {
    Bound made = bound.get(kind);
    if (made != null && made.n() == n) {
      return made;
    }
    if (made != null) {
      destroy(made.src(), made.weights(), made.dst(), made.bias());
    }
    Pointer srcDesc = desc(new long[] {n, kind.k()}, kind.src(), OneDnn.TAG_AB);
    Pointer weightDesc = desc(new long[] {kind.k(), kind.outs()}, kind.weights(),
        OneDnn.TAG_BA);
    Pointer dstDesc = desc(new long[] {n, kind.outs()}, kind.dst(), OneDnn.TAG_AB);
    Pointer biasDesc = desc(new long[] {1, kind.outs()}, OneDnn.F32, OneDnn.TAG_AB);
    try {
      made = new Bound(n, memory(srcDesc, null), memory(weightDesc, null),
          memory(dstDesc, null), memory(biasDesc, null));
    } finally {
      destroyDescs(srcDesc, weightDesc, dstDesc, biasDesc);
    }
    bound.put(kind, made);
    return made;
  }

  private void setHandle(Pointer memory, Memory data) {
    OneDnn.check(api.dnnl_memory_set_data_handle(memory, data), "dnnl_memory_set_data_handle");
  }

  /** Runs a matmul primitive on these memories (bias null: none) on this thread's stream. */
  void execute(Pointer primitive, Pointer src, Pointer weights, Pointer dst, Pointer bias) {
    args.setInt(0, OneDnn.ARG_SRC);
    args.setPointer(8, src);
    args.setInt(16, OneDnn.ARG_WEIGHTS);
    args.setPointer(24, weights);
    args.setInt(32, OneDnn.ARG_DST);
    args.setPointer(40, dst);
    if (bias != null) {
      args.setInt(48, OneDnn.ARG_BIAS);
      args.setPointer(56, bias);
    }
    OneDnn.check(api.dnnl_primitive_execute(primitive, stream, bias == null ? 3 : 4, args),
        "matmul");
    OneDnn.check(api.dnnl_stream_wait(stream), "dnnl_stream_wait");
  }

  /**
   * An int8 product oneDNN turns into GELU(product + bias) as it stores it, for {@code rows}
   * rows (fixed: a binary post-op's input takes no run-time dimension): uint8 (rows, K) by int8
   * (K, N), the int32 sums times each output's weight scale (a scale attribute) and each row's
   * token scale (a binary post-op), plus the bias when {@code biased} (another, after the token
   * scale: oneDNN's own bias would be added before it), then GELU (erf); float32 out.
   */
  record Int8Gelu(int k, int outs, int rows, boolean biased) {}

  /**
   * dst (rows, N) = {@link Int8Gelu}'s product of the source, on weights (N, K) with their
   * scales (N floats) in native memory, the token scales (rows floats) and the bias (N floats,
   * when biased) in buffers; false, and nothing run, where oneDNN has no such kernel here
   * ({@link #runsInt8Gelu}).
   */
  boolean runInt8Gelu(Int8Gelu kind, NativeBuffer source, Memory weights, Memory weightScales,
      NativeBuffer tokenScales, NativeBuffer bias, NativeBuffer dst) {
    GeluPrimitive p = int8Gelu(kind);
    if (p == null) {
      return false;
    }
    dst.ensure(4L * kind.rows() * kind.outs());
    Memory[] data = {source.memory, weights, dst.memory, weightScales, tokenScales.memory,
        kind.biased() ? bias.memory : null};
    int count = 0;
    for (int i = 0; i < data.length; i++) {
      if (data[i] != null) {
        setHandle(p.memories[i], data[i]);
        args.setInt(16L * count, GeluPrimitive.ARGS[i]);
        args.setPointer(16L * count + 8, p.memories[i]);
        count++;
      }
    }
    OneDnn.check(api.dnnl_primitive_execute(p.primitive, stream, count, args), "int8 matmul");
    OneDnn.check(api.dnnl_stream_wait(stream), "dnnl_stream_wait");
    return true;
  }

  /** Whether oneDNN has a kernel for this product on this processor (made on first ask). */
  boolean runsInt8Gelu(Int8Gelu kind) {
    return int8Gelu(kind) != null;
  }

  /** An {@link Int8Gelu} primitive and its memories, whose data handles are set per run. */
  private static final class GeluPrimitive {
    static final int[] ARGS = {OneDnn.ARG_SRC, OneDnn.ARG_WEIGHTS, OneDnn.ARG_DST,
        OneDnn.ARG_ATTR_SCALES | OneDnn.ARG_WEIGHTS, OneDnn.ARG_ATTR_POST_OP | OneDnn.ARG_SRC_1,
        2 * OneDnn.ARG_ATTR_POST_OP | OneDnn.ARG_SRC_1};
    final Pointer primitive;
    final Pointer[] memories;

    GeluPrimitive(Pointer primitive, Pointer[] memories) {
      this.primitive = primitive;
      this.memories = memories;
    }
  }

  private GeluPrimitive int8Gelu(Int8Gelu kind) {
    GeluPrimitive made = int8Gelus.get(kind);
    if (made != null || unsupported.contains(kind)) {
      return made;
    }
    long rows = kind.rows();
    Pointer[] descs = {
        desc(new long[] {1, rows, kind.k()}, OneDnn.U8, OneDnn.TAG_ABC),
        desc(new long[] {1, kind.k(), kind.outs()}, OneDnn.S8, OneDnn.TAG_ACB),
        desc(new long[] {1, rows, kind.outs()}, OneDnn.F32, OneDnn.TAG_ABC),
        desc(new long[] {kind.outs()}, OneDnn.F32, OneDnn.TAG_A),
        desc(new long[] {1, rows, 1}, OneDnn.F32, OneDnn.TAG_ABC),
        desc(new long[] {1, 1, kind.outs()}, OneDnn.F32, OneDnn.TAG_ABC)};
    Pointer attr = null;
    Pointer postOps = null;
    try {
      PointerByReference ref = new PointerByReference();
      OneDnn.check(api.dnnl_post_ops_create(ref), "dnnl_post_ops_create");
      postOps = ref.getValue();
      OneDnn.check(api.dnnl_post_ops_append_binary(postOps, OneDnn.BINARY_MUL, descs[4]),
          "token scales");
      if (kind.biased()) {
        OneDnn.check(api.dnnl_post_ops_append_binary(postOps, OneDnn.BINARY_ADD, descs[5]),
            "bias");
      }
      OneDnn.check(api.dnnl_post_ops_append_eltwise(postOps, OneDnn.eltwise(Activation.GELU),
          0f, 0f), "gelu");
      OneDnn.check(api.dnnl_primitive_attr_create(ref), "dnnl_primitive_attr_create");
      attr = ref.getValue();
      OneDnn.check(api.dnnl_primitive_attr_set_scales_mask(attr, OneDnn.ARG_WEIGHTS, 1 << 2),
          "weight scales");   // per N: the third dimension of (1, K, N)
      OneDnn.check(api.dnnl_primitive_attr_set_post_ops(attr, postOps), "set_post_ops");
      if (api.dnnl_matmul_primitive_desc_create(ref, engine, descs[0], descs[1], null,
          descs[2], attr) != 0) {
        unsupported.add(kind);
        return null;
      }
      Pointer pd = ref.getValue();
      if (!implementation(pd).startsWith("brg_matmul")) {
        // AVX2 without VNNI: gemm:jit, whose post-ops ran the feed-forward 1.1x slower than
        // the Java passes (4.0 against 3.6 ms for 256 rows of MiniLM's); ref: far slower
        unsupported.add(kind);
        api.dnnl_primitive_desc_destroy(pd);
        return null;
      }
      OneDnn.check(api.dnnl_primitive_create(ref, pd), "dnnl_primitive_create");
      api.dnnl_primitive_desc_destroy(pd);
      Pointer primitive = ref.getValue();
      Pointer[] memories = new Pointer[descs.length];
      for (int i = 0; i < descs.length; i++) {
        memories[i] = memory(descs[i], null);
      }
      made = new GeluPrimitive(primitive, memories);
      int8Gelus.put(kind, made);
      return made;
    } finally {
      destroyDescs(descs);
      if (attr != null) {
        api.dnnl_primitive_attr_destroy(attr);
      }
      if (postOps != null) {
        api.dnnl_post_ops_destroy(postOps);
      }
    }
  }

  private Pointer primitive(Kind kind) {
    Pointer primitive = primitives.get(kind);
    if (primitive != null) {
      return primitive;
    }
    Pointer src = desc(new long[] {OneDnn.RUNTIME_DIM, kind.k()}, kind.src(), OneDnn.TAG_AB);
    Pointer wei = desc(new long[] {kind.k(), kind.outs()}, kind.weights(), OneDnn.TAG_BA);
    Pointer dst = desc(new long[] {OneDnn.RUNTIME_DIM, kind.outs()}, kind.dst(),
        OneDnn.TAG_AB);
    Pointer bias = kind.biased()
        ? desc(new long[] {1, kind.outs()}, OneDnn.F32, OneDnn.TAG_AB) : null;
    Pointer attr = kind.eltwise() == 0 ? null : OneDnn.postActivation(kind.eltwise());
    PointerByReference ref = new PointerByReference();
    try {
      OneDnn.check(api.dnnl_matmul_primitive_desc_create(ref, engine, src, wei, bias, dst,
          attr), "matmul of (n, " + kind.k() + ") by (" + kind.k() + ", " + kind.outs() + ")");
      Pointer pd = ref.getValue();
      OneDnn.check(api.dnnl_primitive_create(ref, pd), "dnnl_primitive_create");
      api.dnnl_primitive_desc_destroy(pd);
      primitive = ref.getValue();
    } finally {
      destroyDescs(src, wei, dst, bias);
      if (attr != null) {
        api.dnnl_primitive_attr_destroy(attr);
      }
    }
    primitives.put(kind, primitive);
    return primitive;
  }

  /** The name of the implementation oneDNN chose for a primitive descriptor. */
  private String implementation(Pointer pd) {
    PointerByReference info = new PointerByReference();
    OneDnn.check(api.dnnl_primitive_desc_query(pd, OneDnn.QUERY_IMPL_INFO, 0, info),
        "dnnl_primitive_desc_query");
    return info.getValue().getString(0);
  }

  Pointer desc(long[] dims, int type, int tag) {
    PointerByReference ref = new PointerByReference();
    OneDnn.check(api.dnnl_memory_desc_create_with_tag(ref, dims.length, dims, type, tag),
        "dnnl_memory_desc_create_with_tag");
    return ref.getValue();
  }

  Pointer memory(Pointer desc, Memory data) {
    PointerByReference ref = new PointerByReference();
    OneDnn.check(api.dnnl_memory_create(ref, desc, engine, data), "dnnl_memory_create");
    return ref.getValue();
  }

  void destroy(Pointer... memories) {
    for (Pointer m : memories) {
      if (m != null) {
        api.dnnl_memory_destroy(m);
      }
    }
  }

  void destroyDescs(Pointer... descs) {
    for (Pointer d : descs) {
      if (d != null) {
        api.dnnl_memory_desc_destroy(d);
      }
    }
  }

  /**
   * Native memory oneDNN reads or writes, grown as batches need, with one native-order view of
   * it for the passes (JNA registers every view it makes in a synchronized map: one per
   * buffer, not one per product).
   */
  static final class NativeBuffer {
    Memory memory = new Memory(1);
    ByteBuffer view = viewOf(memory);

    /** The memory, grown to at least {@code bytes}. */
    Memory ensure(long bytes) {
      if (memory.size() < bytes) {
        memory = new Memory(Math.max(bytes, memory.size() + memory.size() / 2));
        view = viewOf(memory);
      }
      return memory;
    }

    private static ByteBuffer viewOf(Memory memory) {
      return memory.getByteBuffer(0, memory.size()).order(ByteOrder.nativeOrder());
    }
  }
}
