package io.corpus.encoder.kernel;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.util.HashMap;
import java.util.Map;

/**
 * The two products of a tile of attention in bfloat16 with float32 sums, on oneDNN: the scores
 * S (bq, bk) = scale · Q Kᵀ and the values' sum O (bq, D) += P V, where Q, K and V are rows of
 * a layer's fused q, k, v buffer rounded once to bfloat16 ({@link Bfloat16Rows}) and P is the
 * tile's softmax numerators, rounded here. The softmax between them stays float32 on the heap.
 * One per thread ({@link #forThisThread}): each thread has its own oneDNN stream and primitives
 * (one per tile shape, made on first use), and runs them on that thread alone, so a tile's bits
 * do not depend on which thread or how many ran it.
 */
public final class Bfloat16Tiles {
  private static final int ELTWISE_LINEAR = 0x26;   // α·x + β, oneDNN's dnnl_eltwise_linear
  private static final ThreadLocal<Bfloat16Tiles> PER_THREAD =
      ThreadLocal.withInitial(Bfloat16Tiles::new);

  private final Matmuls matmuls = new Matmuls();
  private final OneDnn.Api api = OneDnn.api();
  private final Bfloat16Passes passes = Bfloat16Passes.create();
  private final Map<Shape, Products> made = new HashMap<>();
  private final Matmuls.NativeBuffer scores = new Matmuls.NativeBuffer();   // (bq, bk) float32
  private final Matmuls.NativeBuffer weights = new Matmuls.NativeBuffer();  // (bq, bk) bfloat16
  private final Matmuls.NativeBuffer sums = new Matmuls.NativeBuffer();     // (bq, D) float32
  private float[] added = new float[0];                                     // (bq, D)

  private Bfloat16Tiles() {}

  /** The calling thread's. */
  public static Bfloat16Tiles forThisThread() {
    return PER_THREAD.get();
  }

  /** A tile's shape: bq queries, bk keys, D values a head, row stride ld of the fused rows. */
  private record Shape(int bq, int bk, int d, int ld, float scale) {}

  /** A shape's two primitives and their memories, whose data handles each run sets. */
  private record Products(Pointer scores, Pointer q, Pointer k, Pointer s, Pointer values,
      Pointer p, Pointer v, Pointer o) {}

  /**
   * s (bq, bk) from {@code sOffset}, row stride bk = scale · Q Kᵀ: Q the bq rows of D values
   * from element {@code q} of {@code rows}, K the bk rows from element {@code k}, both with row
   * stride {@code ld}.
   */
  public void scores(Bfloat16Rows rows, long q, long k, int ld, int bq, int bk, int d,
      float scale, float[] s, int sOffset) {
    Products p = products(new Shape(bq, bk, d, ld, scale));
    scores.ensure(4L * bq * bk);
    handle(p.q(), rows.at(q));
    handle(p.k(), rows.at(k));
    handle(p.s(), scores.memory);
    matmuls.execute(p.scores(), p.q(), p.k(), p.s(), null);
    scores.memory.read(0, s, sOffset, bq * bk);
  }

  /**
   * out (bq, D) += P V, out's rows {@code outStride} apart from {@code out}: P the (bq, bk)
   * numerators from {@code pOffset} (row stride bk), rounded to bfloat16 here, V the bk rows of
   * D values from element {@code v} of {@code rows} (row stride {@code ld}).
   */
  public void addValues(float[] numerators, int pOffset, Bfloat16Rows rows, long v, int ld,
      int bq, int bk, int d, float scale, float[] out, int outOffset, int outStride) {
    Products p = products(new Shape(bq, bk, d, ld, scale));
    weights.ensure(2L * bq * bk);
    passes.round(bq * bk, numerators, pOffset, weights.view);
    sums.ensure(4L * bq * d);
    handle(p.p(), weights.memory);
    handle(p.v(), rows.at(v));
    handle(p.o(), sums.memory);
    matmuls.execute(p.values(), p.p(), p.v(), p.o(), null);
    if (added.length < bq * d) {
      added = new float[bq * d];
    }
    sums.memory.read(0, added, 0, bq * d);
    for (int i = 0; i < bq; i++) {
      Vectors.add(added, i * d, out, outOffset + i * outStride, d);
    }
  }

  private void handle(Pointer memory, Pointer data) {
    OneDnn.check(api.dnnl_memory_set_data_handle(memory, data), "dnnl_memory_set_data_handle");
  }

  private Products products(Shape shape) {
    Products p = made.get(shape);
    if (p == null) {
      p = make(shape);
      made.put(shape, p);
    }
    return p;
  }

  private Products make(Shape s) {
    Pointer q = strided(new long[] {s.bq(), s.d()}, OneDnn.BF16, new long[] {s.ld(), 1});
    Pointer k = strided(new long[] {s.d(), s.bk()}, OneDnn.BF16, new long[] {1, s.ld()});
    Pointer sc = matmuls.desc(new long[] {s.bq(), s.bk()}, OneDnn.F32, OneDnn.TAG_AB);
    Pointer p = matmuls.desc(new long[] {s.bq(), s.bk()}, OneDnn.BF16, OneDnn.TAG_AB);
    Pointer v = strided(new long[] {s.bk(), s.d()}, OneDnn.BF16, new long[] {s.ld(), 1});
    Pointer o = matmuls.desc(new long[] {s.bq(), s.d()}, OneDnn.F32, OneDnn.TAG_AB);
    Pointer attr = scaled(s.scale());
    try {
      return new Products(primitive(q, k, sc, attr), matmuls.memory(q, null),
          matmuls.memory(k, null), matmuls.memory(sc, null), primitive(p, v, o, null),
          matmuls.memory(p, null), matmuls.memory(v, null), matmuls.memory(o, null));
    } finally {
      matmuls.destroyDescs(q, k, sc, p, v, o);
      api.dnnl_primitive_attr_destroy(attr);
    }
  }

  private Pointer primitive(Pointer src, Pointer weights, Pointer dst, Pointer attr) {
    PointerByReference ref = new PointerByReference();
    OneDnn.check(api.dnnl_matmul_primitive_desc_create(ref, OneDnn.engine(), src, weights,
        null, dst, attr), "bfloat16 attention matmul");
    Pointer pd = ref.getValue();
    try {
      OneDnn.check(api.dnnl_primitive_create(ref, pd), "dnnl_primitive_create");
    } finally {
      api.dnnl_primitive_desc_destroy(pd);
    }
    return ref.getValue();
  }

  private Pointer strided(long[] dims, int type, long[] strides) {
    PointerByReference ref = new PointerByReference();
    OneDnn.check(api.dnnl_memory_desc_create_with_strides(ref, dims.length, dims, type,
        strides), "dnnl_memory_desc_create_with_strides");
    return ref.getValue();
  }

  /** Attributes that multiply the product by {@code scale} as it is stored. */
  private Pointer scaled(float scale) {
    PointerByReference ref = new PointerByReference();
    OneDnn.check(api.dnnl_post_ops_create(ref), "dnnl_post_ops_create");
    Pointer postOps = ref.getValue();
    try {
      OneDnn.check(api.dnnl_post_ops_append_eltwise(postOps, ELTWISE_LINEAR, scale, 0f),
          "dnnl_post_ops_append_eltwise");
      OneDnn.check(api.dnnl_primitive_attr_create(ref), "dnnl_primitive_attr_create");
      Pointer attr = ref.getValue();
      OneDnn.check(api.dnnl_primitive_attr_set_post_ops(attr, postOps), "set_post_ops");
      return attr;
    } finally {
      api.dnnl_post_ops_destroy(postOps);
    }
  }
}
