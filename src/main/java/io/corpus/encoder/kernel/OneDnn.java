package io.corpus.encoder.kernel;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import io.corpus.encoder.common.NativeCache;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * oneDNN, the kernel library under PyTorch and ONNX Runtime, for the products float32 BLAS cannot
 * do (bfloat16 and int8 inputs with float32 or int32 results), and for float32 ones where its
 * kernels outrun the BLAS's ({@link Float32Products}). Its C API is called through JNA;
 * the libraries come from the {@code org.bytedeco:dnnl} jar (and libOpenCL.so.1, which
 * libdnnl.so.3 links, from bytedeco's OpenCL jar), extracted once per user into the job's cache
 * and checked before each load ({@link NativeCache}), as the bundled OpenBLAS is. Loaded on
 * first use; {@link #available()} says whether it could be.
 *
 * <p>oneDNN picks its kernels at run time from the processor's instructions; {@link #isa()}
 * names the set it dispatched to. Products run on the calling thread only (one OpenMP thread per
 * caller), as the BLAS does: a Spark task is one core.
 */
public final class OneDnn {
  static final String VERSION = "3.8.1";
  private static final String FOLDER = "org/bytedeco/dnnl/linux-x86_64/";
  private static final String OPENCL = "org/bytedeco/opencl/linux-x86_64/libOpenCL.so.1";
  private static final List<String> FILES = List.of("libgomp.so.1", "libdnnl.so.3");

  // oneDNN's enum values (dnnl_types.h, version 3.8)
  static final int F32 = 3;
  static final int BF16 = 2;
  static final int S32 = 4;
  static final int S8 = 5;
  static final int U8 = 6;
  static final int TAG_AB = 3;           // row-major (rows, cols)
  static final int TAG_BA = 14;          // (K, N) stored as (N, K): PyTorch's (out, in)
  static final int TAG_A = 2;            // a vector
  static final int TAG_ABC = 4;          // row-major (batch, rows, cols)
  static final int TAG_ACB = 15;         // (batch, K, N) stored as (batch, N, K)
  static final int ARG_SRC = 1;
  static final int ARG_DST = 17;
  static final int ARG_WEIGHTS = 33;
  static final int ARG_BIAS = 41;
  static final int ARG_SRC_1 = 2;                  // a binary post-op's second input
  static final int ARG_ATTR_SCALES = 4096;         // | ARG_WEIGHTS: the weights' scales
  static final int ARG_ATTR_POST_OP = 32768;       // · (index + 1) | ARG_SRC_1
  static final int BINARY_ADD = 0x1fff0;
  static final int BINARY_MUL = 0x1fff1;
  private static final int ELTWISE_RELU = 0x20;
  private static final int ELTWISE_GELU_TANH = 0x2b;
  private static final int ELTWISE_SWISH = 0x2c;
  private static final int ELTWISE_GELU_ERF = 0x31;
  static final long RUNTIME_DIM = Long.MIN_VALUE;
  static final int QUERY_IMPL_INFO = 8;

  /**
   * The C functions used, as declared in dnnl.h (handles are pointers), bound by JNA's direct
   * mapping ({@code Native.register}): a call costs a fraction of a microsecond where an
   * interface's proxy took microseconds, and a product makes about fourteen of them.
   */
  static final class Api {
    native int dnnl_engine_create(PointerByReference engine, int kind, long index);

    native int dnnl_stream_create(PointerByReference stream, Pointer engine, int flags);

    native int dnnl_stream_wait(Pointer stream);

    native int dnnl_memory_desc_create_with_tag(PointerByReference desc, int ndims,
        long[] dims, int type, int tag);

    native int dnnl_memory_desc_create_with_strides(PointerByReference desc, int ndims,
        long[] dims, int type, long[] strides);

    native int dnnl_memory_desc_destroy(Pointer desc);

    native int dnnl_matmul_primitive_desc_create(PointerByReference pd, Pointer engine,
        Pointer src, Pointer weights, Pointer bias, Pointer dst, Pointer attr);

    native int dnnl_primitive_desc_query(Pointer pd, int what, int index,
        PointerByReference result);

    native int dnnl_primitive_desc_destroy(Pointer pd);

    native int dnnl_primitive_create(PointerByReference primitive, Pointer pd);

    native int dnnl_memory_create(PointerByReference memory, Pointer desc, Pointer engine,
        Pointer handle);

    native int dnnl_memory_destroy(Pointer memory);

    native int dnnl_memory_set_data_handle(Pointer memory, Pointer handle);

    native int dnnl_primitive_execute(Pointer primitive, Pointer stream, int nargs,
        Pointer args);

    native int dnnl_get_effective_cpu_isa();

    native int dnnl_set_max_cpu_isa(int isa);

    native int dnnl_primitive_attr_create(PointerByReference attr);

    native int dnnl_primitive_attr_destroy(Pointer attr);

    native int dnnl_primitive_attr_set_post_ops(Pointer attr, Pointer postOps);

    native int dnnl_post_ops_create(PointerByReference postOps);

    native int dnnl_post_ops_destroy(Pointer postOps);

    native int dnnl_post_ops_append_eltwise(Pointer postOps, int algorithm, float alpha,
        float beta);

    native int dnnl_post_ops_append_binary(Pointer postOps, int algorithm, Pointer src1);

    native int dnnl_primitive_attr_set_scales_mask(Pointer attr, int arg, int mask);
  }

  /** The OpenMP runtime oneDNN is built on: its thread count is set per calling thread. */
  interface OpenMp extends Library {
    void omp_set_num_threads(int threads);
  }

  private OneDnn() {}

  /** Loaded once per JVM, on first use. */
  private static final class Loaded {
    static final OpenMp OMP;
    static final Api API;
    static final Pointer ENGINE;
    static final String FAILURE;

    static {
      OpenMp omp = null;
      Api api = null;
      Pointer engine = null;
      String failure = null;
      try {
        Path dir = extract();
        omp = Native.load(dir.resolve(FILES.get(0)).toString(), OpenMp.class);
        Native.register(Api.class, NativeLibrary.getInstance(dir.resolve(FILES.get(1))
            .toString()));
        api = new Api();
        String cap = System.getProperty("encoder.onednn.max-isa", "");
        if (!cap.isEmpty()) {      // tests: run the kernels an older processor would
          check(api.dnnl_set_max_cpu_isa(Isa.named(cap).code()), "dnnl_set_max_cpu_isa " + cap);
        }
        PointerByReference ref = new PointerByReference();
        check(api.dnnl_engine_create(ref, 1, 0), "dnnl_engine_create");
        engine = ref.getValue();
      } catch (RuntimeException | LinkageError e) {
        failure = e.getMessage();
      }
      OMP = omp;
      API = api;
      ENGINE = engine;
      FAILURE = failure;
    }

    private static Path extract() {
      ClassLoader loader = OneDnn.class.getClassLoader();
      if (loader.getResource(FOLDER + FILES.get(1)) == null || loader.getResource(OPENCL) == null) {
        throw new IllegalStateException("oneDNN's libraries are not on the classpath (the "
            + "org.bytedeco:dnnl and org.bytedeco:opencl linux-x86_64 jars)");
      }
      Map<String, String> files = new LinkedHashMap<>();
      files.put("libOpenCL.so.1", OPENCL);
      for (String file : FILES) {
        files.put(file, FOLDER + file);
      }
      return NativeCache.copies(loader, "onednn-" + VERSION, files);
    }
  }

  /** Whether oneDNN loaded on this machine. */
  public static boolean available() {
    return Loaded.API != null;
  }

  /** Why oneDNN did not load, or empty when it did. */
  public static String failure() {
    return Loaded.FAILURE == null ? "" : Loaded.FAILURE;
  }

  /** The instruction set oneDNN's kernels dispatch to on this processor. */
  public static Isa isa() {
    return Isa.of(api().dnnl_get_effective_cpu_isa());
  }

  /** For logs and the run summary: {@code oneDNN 3.8.1 (avx512_core_vnni)}. */
  public static String describe() {
    return available() ? "oneDNN " + VERSION + " (" + isa().label() + ")"
        : "oneDNN " + VERSION + " not loaded: " + failure();
  }

  static Api api() {
    if (Loaded.API == null) {
      throw new IllegalStateException("oneDNN did not load: " + Loaded.FAILURE);
    }
    return Loaded.API;
  }

  static Pointer engine() {
    api();
    return Loaded.ENGINE;
  }

  /** One OpenMP thread for the calling thread's products. */
  static void singleThreaded() {
    Loaded.OMP.omp_set_num_threads(1);
  }

  /** oneDNN's eltwise algorithm for {@code activation}: the same function, in float32. */
  static int eltwise(Activation activation) {
    return switch (activation) {
      case RELU -> ELTWISE_RELU;
      case GELU -> ELTWISE_GELU_ERF;
      case GELU_TANH -> ELTWISE_GELU_TANH;
      case SILU -> ELTWISE_SWISH;
    };
  }

  /**
   * Primitive attributes that apply {@code eltwise} as a product is stored (a post-op); the
   * caller destroys them once the primitive is made. Swish with α = 1 is SiLU; ReLU's α (the
   * slope below zero) is 0.
   */
  static Pointer postActivation(int eltwise) {
    Api api = api();
    PointerByReference ref = new PointerByReference();
    check(api.dnnl_post_ops_create(ref), "dnnl_post_ops_create");
    Pointer postOps = ref.getValue();
    try {
      check(api.dnnl_post_ops_append_eltwise(postOps, eltwise,
          eltwise == ELTWISE_SWISH ? 1f : 0f, 0f), "dnnl_post_ops_append_eltwise");
      check(api.dnnl_primitive_attr_create(ref), "dnnl_primitive_attr_create");
      Pointer attr = ref.getValue();
      check(api.dnnl_primitive_attr_set_post_ops(attr, postOps), "set_post_ops");
      return attr;
    } finally {
      api.dnnl_post_ops_destroy(postOps);
    }
  }

  static void check(int status, String what) {
    if (status != 0) {
      throw new IllegalStateException(what + " failed: oneDNN status " + status);
    }
  }
}
