package io.corpus.encoder.kernel;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;

/**
 * oneDNN's matmul for one thread: its stream and its primitives, one per {@link Kind}, made on
 * first use with the row count left to run time, so any batch reuses them (a thread's own, so
 * two tasks never share a primitive's scratch space), run on {@link NativeBuffer}s.
 *
 * <p>Not thread-safe: {@link ReducedProducts} keeps one per thread.
 */
final class Matmuls {
  private final OneDnn.Api api = OneDnn.api();
  private final Pointer engine = OneDnn.engine();
  private final Pointer stream;
  private final Map<Kind, Pointer> primitives = new HashMap<>();
  private final Memory args = new Memory(64);   // dnnl_exec_arg_t {int arg; void* memory}s

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
    Pointer srcDesc = desc(new long[] {n, kind.k()}, kind.src(), OneDnn.TAG_AB);
    Pointer weightDesc = desc(new long[] {kind.k(), kind.outs()}, kind.weights(),
        OneDnn.TAG_BA);
    Pointer dstDesc = desc(new long[] {n, kind.outs()}, kind.dst(), OneDnn.TAG_AB);
    Pointer biasDesc = bias == null ? null
        : desc(new long[] {1, kind.outs()}, OneDnn.F32, OneDnn.TAG_AB);
    Pointer src = memory(srcDesc, source.memory);
    Pointer wei = memory(weightDesc, weights);
    Pointer out = memory(dstDesc, dst.memory);
    Pointer added = bias == null ? null : memory(biasDesc, bias.memory);
    try {
      execute(primitive, src, wei, out, added);
    } finally {
      destroy(src, wei, out, added);
      destroyDescs(srcDesc, weightDesc, dstDesc, biasDesc);
    }
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
