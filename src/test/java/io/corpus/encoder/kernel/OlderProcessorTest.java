package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.ChildJvm;
import io.corpus.encoder.testing.Slow;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * int8 on the processors users have, whatever this one is: oneDNN's kernels capped at AVX2 and at
 * AVX-512 without VNNI (whose u8·s8 pairs saturate at int16) compute the int8 product exactly
 * as quantized, because activations are quantized to 7 bits there; at 8 bits the same inputs
 * come out wrong by thousands of percent (measured while building this: every value of a
 * 64 × 96 product wrong). bfloat16 is refused on both, naming the instruction set; asked for
 * oneDNN's emulation (as tests do), AVX-512 runs it and AVX2, where oneDNN has no bfloat16
 * kernels at all, still refuses it up front rather than failing in the first product.
 */
@Slow
class OlderProcessorTest {
  private static Map<String, String> probe(String isa) throws Exception {
    ChildJvm.Result r = ChildJvm.run(Int8Probe.class, Map.of(),
        List.of("-Dencoder.onednn.max-isa=" + isa));
    assertEquals(0, r.exitCode(), r.err());
    Map<String, String> values = new java.util.HashMap<>();
    for (String line : r.lines()) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        values.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return values;
  }

  @Test
  void withoutVnniActivationsTakeSevenBitsAndTheProductIsExact() throws Exception {
    for (String isa : List.of("avx2", "avx512_core")) {
      Map<String, String> p = probe(isa);
      if (!p.get("isa").equals(isa)) {
        System.out.println("this processor lacks " + isa + "; it ran " + p.get("isa"));
        assertNotEquals("avx2", isa, "every processor here has AVX2");
        assertEquals("avx2", p.get("isa"), "a processor without AVX-512 runs AVX2");
        continue;
      }
      assertEquals("127", p.get("qmax"), isa);
      assertTrue(Double.parseDouble(p.get("worst")) < 1e-5, isa + ": worst " + p.get("worst"));
      assertTrue(p.get("bfloat16").contains("oneDNN dispatches to " + isa + ", which has no "
          + "bfloat16 dot products"), p.get("bfloat16"));
      assertEquals(isa.equals("avx2") ? p.get("bfloat16") : "runs", p.get("bfloat16-emulated"),
          isa + ", emulation asked for");
      System.out.println(isa + ": 7-bit activations, worst relative gap " + p.get("worst"));
    }
  }

  @Test
  void thisProcessorsOwnKernelsUseEightBitsWhereTheyAreExact() throws Exception {
    Map<String, String> p = probe("");
    boolean vnni = OneDnn.isa().exactInt8();
    assertEquals(vnni ? "255" : "127", p.get("qmax"), p.get("isa"));
    assertTrue(Double.parseDouble(p.get("worst")) < 1e-5, "worst " + p.get("worst"));
  }
}
