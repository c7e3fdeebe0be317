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
  private final Map<Shape, Product> scoreProducts = new HashMap<>();   // Q Kᵀ, by shape
  private final Map<Shape, Product> valueProducts = new HashMap<>();   // P V, by shape
  private final Matmuls.NativeBuffer scores = new Matmuls.NativeBuffer();   // (bq, bk) float32
  private final Matmuls.NativeBuffer numerators = new Matmuls.NativeBuffer(); // (bq, bk) bf16
  private final Matmuls.NativeBuffer sums = new Matmuls.NativeBuffer();     // (bq, D) float32
  private float[] added = new float[0];                                     // (bq, D)

  private Bfloat16Tiles() {}

  /** The calling thread's. */
  public static Bfloat16Tiles forThisThread() {
    return PER_THREAD.get();
  }

  /**
   * A tile's shape: bq queries, bk keys, D values a head, row stride ld of the fused rows; the
   * scale the scores are stored with (1 for the values' product).
   */
  private record Shape(int bq, int bk, int d, int ld, float scale) {}

  /** One product's primitive and its memories, whose data handles each run sets. */
  private record Product(Pointer primitive, Pointer src, Pointer weights, Pointer dst) {}

  /**
   * s (bq, bk) from {@code sOffset}, row stride bk = scale · Q Kᵀ: Q the bq rows of D values
   * from element {@code q} of {@code rows}, K the bk rows from element {@code k}, both with row
   * stride {@code ld}.
   */
  public void scores(Bfloat16Rows rows, long q, long k, int ld, int bq, int bk, int d,
      float scale, float[] s, int sOffset) {
    Product p = scoreProducts.computeIfAbsent(new Shape(bq, bk, d, ld, scale), this::scoresOf);
    scores.ensure(4L * bq * bk);
    run(p, rows.at(q), rows.at(k), scores.memory);
    scores.memory.read(0, s, sOffset, bq * bk);
  }

  /**
   * out (bq, D) += P V, out's rows {@code outStride} apart from {@code out}: P the (bq, bk)
   * numerators from {@code pOffset} (row stride bk), rounded to bfloat16 here, V the bk rows of
   * D values from element {@code v} of {@code rows} (row stride {@code ld}).
   */
  public void addValues(float[] p, int pOffset, Bfloat16Rows rows, long v, int ld, int bq,
      int bk, int d, float[] out, int outOffset, int outStride) {
    Product product = valueProducts.computeIfAbsent(new Shape(bq, bk, d, ld, 1f),
        this::valuesOf);
    numerators.ensure(2L * bq * bk);
    passes.round(bq * bk, p, pOffset, numerators.view);
    sums.ensure(4L * bq * d);
    run(product, numerators.memory, rows.at(v), sums.memory);
    if (added.length < bq * d) {
      added = new float[bq * d];
    }
    sums.memory.read(0, added, 0, bq * d);
    for (int i = 0; i < bq; i++) {
      Vectors.add(added, i * d, out, outOffset + i * outStride, d);
    }
  }

  private void run(Product p, Pointer src, Pointer weights, Pointer dst) {
    handle(p.src(), src);
    handle(p.weights(), weights);
    handle(p.dst(), dst);
    matmuls.execute(p.primitive(), p.src(), p.weights(), p.dst(), null);
  }

  private void handle(Pointer memory, Pointer data) {
    OneDnn.check(api.dnnl_memory_set_data_handle(memory, data), "dnnl_memory_set_data_handle");
  }

  /** Q (bq, D) by Kᵀ (D, bk), both strided rows of the fused buffer, stored times the scale. */
  private Product scoresOf(Shape s) {
    Pointer q = strided(new long[] {s.bq(), s.d()}, new long[] {s.ld(), 1});
    Pointer k = strided(new long[] {s.d(), s.bk()}, new long[] {1, s.ld()});
    Pointer dst = matmuls.desc(new long[] {s.bq(), s.bk()}, OneDnn.F32, OneDnn.TAG_AB);
    Pointer attr = scaled(s.scale());
    try {
      return product(q, k, dst, attr);
    } finally {
      api.dnnl_primitive_attr_destroy(attr);
    }
  }

  /** P (bq, bk), dense, by V (bk, D), strided rows of the fused buffer. */
  private Product valuesOf(Shape s) {
    Pointer p = matmuls.desc(new long[] {s.bq(), s.bk()}, OneDnn.BF16, OneDnn.TAG_AB);
    Pointer v = strided(new long[] {s.bk(), s.d()}, new long[] {s.ld(), 1});
    Pointer dst = matmuls.desc(new long[] {s.bq(), s.d()}, OneDnn.F32, OneDnn.TAG_AB);
    return product(p, v, dst, null);
  }

  /** The matmul of these descriptors (bfloat16 in, float32 out) and its memories. */
  private Product product(Pointer src, Pointer weights, Pointer dst, Pointer attr) {
    try {
      return new Product(primitive(src, weights, dst, attr), matmuls.memory(src, null),
          matmuls.memory(weights, null), matmuls.memory(dst, null));
    } finally {
      matmuls.destroyDescs(src, weights, dst);
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

  /** A bfloat16 descriptor of {@code dims} with these element strides. */
  private Pointer strided(long[] dims, long[] strides) {
    PointerByReference ref = new PointerByReference();
    OneDnn.check(api.dnnl_memory_desc_create_with_strides(ref, dims.length, dims, OneDnn.BF16,
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
