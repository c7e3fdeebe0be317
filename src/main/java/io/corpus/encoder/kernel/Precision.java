package io.corpus.encoder.kernel;

import io.corpus.encoder.common.ConfigName;

/**
 * The number format of a model's weight products ({@code model.precision}). Norms, softmax,
 * activations, attention, pooling and heads stay float32 in every precision.
 */
public enum Precision implements ConfigName {
  /** float32 weights and products on the BLAS: the reference. */
  FLOAT32("float32"),
  /**
   * Weights rounded to bfloat16 (nearest even, as PyTorch's {@code .to(torch.bfloat16)}), each
   * product's input rounded per batch, products summed in float32 by oneDNN.
   */
  BFLOAT16("bfloat16"),
  /**
   * ONNX Runtime's dynamic quantization: weights symmetric int8 per output row, activations
   * asymmetric uint8 per token, computed on the fly; int32 sums rescaled to float32.
   */
  INT8("int8");

  /**
   * System property that lets bfloat16 run on oneDNN's emulation where the processor lacks it:
   * for tests that hold its numbers on any machine, never for speed.
   */
  public static final String EMULATED_BFLOAT16 = "encoder.bfloat16.emulated";

  private final String configName;

  /**
   * Why this processor does not run this precision, in one line, or empty when it does: int8
   * runs wherever oneDNN loads (AVX2 and up; VNNI and AMX faster), bfloat16 only where the
   * processor multiplies bfloat16 itself (AVX512_BF16, AMX, AVX2-VNNI-2): oneDNN's emulation
   * elsewhere was measured at a quarter of float32's speed (25 against 100 GFLOP/s a core on
   * an AVX-512 VNNI Xeon).
   */
  public java.util.Optional<String> refusal() {
    if (this == FLOAT32) {
      return java.util.Optional.empty();
    }
    if (!OneDnn.available()) {
      return java.util.Optional.of("model.precision = " + configName + " needs oneDNN, which did "
          + "not load: " + OneDnn.failure());
    }
    Isa isa = OneDnn.isa();
    boolean emulationAllowed = Boolean.getBoolean(EMULATED_BFLOAT16) && isa.bfloat16Kernels();
    if (this == BFLOAT16 && !isa.nativeBfloat16() && !emulationAllowed) {
      return java.util.Optional.of("model.precision = bfloat16 is refused on this processor: "
          + "oneDNN dispatches to " + isa.label() + ", which has no bfloat16 dot products "
          + "(AVX512_BF16, AMX or AVX2-VNNI-2), and " + (isa.bfloat16Kernels()
              ? "emulated they run at about a quarter of float32's speed"
              : "oneDNN has no bfloat16 kernels for it, not even emulated")
          + "; use float32, or int8 (" + (isa.exactInt8() ? "VNNI here"
          : "no VNNI here: activations in 7 bits") + ")");
    }
    return java.util.Optional.empty();
  }

  /**
   * Starts loading the native library this precision's products run on (oneDNN: 90 MB
   * extracted and checked, about a second of one core), then measuring their rate
   * ({@link PrecisionCalibration#productRate}; for float32, which library multiplies faster,
   * {@link Float32Products}), on a daemon thread, so that both overlap the job's other start-up
   * work; {@link #refusal()}, the products and the rate wait for it.
   */
  public void loadInBackground() {
    Thread loading = new Thread(this == FLOAT32 ? Precision::float32Library
        : () -> PrecisionCalibration.productRate(this), "onednn-load");
    loading.setDaemon(true);
    loading.start();
  }

  /**
   * Decides where float32 products run, ahead of the weights' loading; a setting it refuses is
   * reported by the loading, which asks again, not by this thread.
   */
  private static void float32Library() {
    try {
      Float32Products.chosen();
    } catch (RuntimeException e) {
      // the loading thread gets the same error and reports it
    }
  }

  Precision(String configName) {
    this.configName = configName;
  }

  @Override
  public String configName() {
    return configName;
  }
}
