package io.corpus.encoder.kernel;

/**
 * The instruction sets oneDNN dispatches to ({@code dnnl_cpu_isa_t}, a bit mask per set), and
 * what each means for reduced-precision products: whether int8 dot products are exact
 * (VNNI's {@code vpdpbusd} sums u8·s8 pairs into int32; without it, {@code vpmaddubsw}
 * saturates pairs at int16, so activations are quantized to 7 bits there) and whether the
 * processor multiplies bfloat16 natively.
 */
public enum Isa {
  DEFAULT(0, "default"),
  SSE41(1, "sse41"),
  AVX(3, "avx"),
  AVX2(7, "avx2"),
  AVX2_VNNI(15, "avx2_vnni"),
  AVX2_VNNI_2(31, "avx2_vnni_2"),
  AVX512_CORE(39, "avx512_core"),
  AVX512_CORE_VNNI(103, "avx512_core_vnni"),
  AVX512_CORE_BF16(231, "avx512_core_bf16"),
  AVX512_CORE_FP16(495, "avx512_core_fp16"),
  AVX512_CORE_AMX(4079, "avx512_core_amx"),
  AVX512_CORE_AMX_FP16(8175, "avx512_core_amx_fp16");

  private static final int AVX2_VNNI_BIT = 0x8;
  private static final int AVX2_VNNI_2_BIT = 0x10;
  private static final int AVX512_VNNI_BIT = 0x40;
  private static final int AVX512_BF16_BIT = 0x80;

  private final int code;
  private final String label;

  Isa(int code, String label) {
    this.code = code;
    this.label = label;
  }

  int code() {
    return code;
  }

  /** oneDNN's name of the set, as in its verbose output: {@code avx512_core_vnni}. */
  public String label() {
    return label;
  }

  /** Whether u8·s8 products sum into int32 without saturating pairs at int16 (VNNI or AMX). */
  public boolean exactInt8() {
    return (code & (AVX2_VNNI_BIT | AVX512_VNNI_BIT)) != 0;
  }

  /** Whether bfloat16 dot products run as instructions, not emulated in float32. */
  public boolean nativeBfloat16() {
    return (code & (AVX512_BF16_BIT | AVX2_VNNI_2_BIT)) != 0;
  }

  /**
   * Whether oneDNN has bfloat16 products here at all: natively, or emulated in float32 on
   * AVX-512. Below that (AVX2 without VNNI-2) every bfloat16 primitive is unimplemented.
   */
  public boolean bfloat16Kernels() {
    return nativeBfloat16() || (code & AVX512_CORE.code) == AVX512_CORE.code;
  }

  static Isa of(int code) {
    Isa best = DEFAULT;
    for (Isa isa : values()) {
      if ((code & isa.code) == isa.code && isa.code >= best.code) {
        best = isa;
      }
    }
    return best;
  }

  static Isa named(String label) {
    for (Isa isa : values()) {
      if (isa.label.equals(label)) {
        return isa;
      }
    }
    throw new IllegalArgumentException("Unknown oneDNN instruction set " + label);
  }
}
