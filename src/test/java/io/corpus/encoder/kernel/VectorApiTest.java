package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.corpus.encoder.kernel.VectorApi.Decision;
import io.corpus.encoder.kernel.VectorApi.Jit;
import io.corpus.encoder.testing.ChildJvm;
import io.corpus.encoder.testing.Slow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class VectorApiTest {
  /** An x86-64 JVM as `java` starts on an AVX-512 processor. */
  private static final Jit X86 = new Jit(true, "amd64", Optional.of("true"), Optional.of("true"),
      Optional.of("4"), Optional.of("64"), Optional.of("true"), Optional.of("3"));

  @Test
  void aJvmThatCompilesVectorsUsesThem() {
    Decision d = VectorApi.decide(X86, "auto");
    assertTrue(d.use(), d.reason());
    assertEquals("UseAVX=3, fused multiply-add, C2", d.reason());
    Jit arm = new Jit(true, "aarch64", Optional.of("true"), Optional.of("true"), Optional.of("4"),
        Optional.of("16"), Optional.of("true"), Optional.empty());
    assertEquals(new Decision(true, "fused multiply-add, C2"), VectorApi.decide(arm, "auto"));
  }

  @Test
  void eachFlagThatLeavesTheVectorApiUncompiledTurnsItOff() {
    assertEquals(new Decision(false, "UseAVX=0: Java 17's C2 compiles no vector max or min of "
        + "floats without AVX (nor fused multiply-add)"),
        VectorApi.decide(withAvx(X86, "0"), "auto"));
    assertTrue(VectorApi.decide(withAvx(X86, "1"), "auto").use());   // 4.2 ns a float, measured
    assertEquals(new Decision(false, "UseFMA=false: the processor or the JVM has no fused "
        + "multiply-add, which C2 needs to compile the vector kernels' fma"),
        VectorApi.decide(new Jit(true, "amd64", Optional.of("true"), Optional.of("true"),
            Optional.of("4"), Optional.of("32"), Optional.of("false"), Optional.of("1")), "auto"));
    assertEquals(new Decision(false, "TieredStopAtLevel=1: without C2 no Vector API call is "
        + "compiled to vector instructions"), VectorApi.decide(new Jit(true, "amd64",
            Optional.of("true"), Optional.of("true"), Optional.of("1"), Optional.of("64"),
            Optional.of("true"), Optional.of("3")), "auto"));
    // C2 alone (no tiers) compiles them, whatever TieredStopAtLevel says
    assertTrue(VectorApi.decide(new Jit(true, "amd64", Optional.of("true"), Optional.of("false"),
        Optional.of("1"), Optional.of("64"), Optional.of("true"), Optional.of("3")), "auto")
        .use());
    assertEquals(new Decision(false, "the JVM interprets (-Xint): no vector instructions"),
        VectorApi.decide(new Jit(true, "amd64", Optional.of("false"), Optional.of("false"),
            Optional.of("4"), Optional.of("64"), Optional.of("true"), Optional.of("3")), "auto"));
    assertEquals(new Decision(false, "MaxVectorSize=8: vectors of fewer than four floats"),
        VectorApi.decide(new Jit(true, "amd64", Optional.of("true"), Optional.of("true"),
            Optional.of("4"), Optional.of("8"), Optional.of("true"), Optional.of("3")), "auto"));
    assertEquals(new Decision(false, "os.arch ppc64le: Java 17 compiles the Vector API to "
        + "vector instructions on x86-64 and AArch64 only"), VectorApi.decide(new Jit(true,
            "ppc64le", Optional.of("true"), Optional.of("true"), Optional.of("4"),
            Optional.of("16"), Optional.of("true"), Optional.empty()), "auto"));
    assertEquals(new Decision(false, "the JVM lacks --add-modules jdk.incubator.vector "
        + "(jobs/jvm.options has it)"),
        VectorApi.decide(new Jit(false, "amd64", Optional.of("true"), Optional.of("true"),
            Optional.of("4"), Optional.of("64"), Optional.of("true"), Optional.of("3")), "on"));
  }

  @Test
  void thePropertyPinsTheChoiceAndRefusesOtherValues() {
    assertEquals(new Decision(true, "encoder.vector-kernels = on"),
        VectorApi.decide(withAvx(X86, "0"), " ON "));
    assertEquals(new Decision(false, "encoder.vector-kernels = off"),
        VectorApi.decide(X86, "off"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> VectorApi.decide(X86, "yes"));
    assertEquals("-Dencoder.vector-kernels is 'yes'; it takes auto, on or off", e.getMessage());
  }

  @Test
  void aJvmWhoseFlagsCannotBeReadKeepsTheVectors() {
    Jit unknown = new Jit(true, "amd64", Optional.empty(), Optional.empty(), Optional.empty(),
        Optional.empty(), Optional.empty(), Optional.empty());
    assertEquals(new Decision(true, "the JIT's flags could not be read (not HotSpot?)"),
        VectorApi.decide(unknown, "auto"));
  }

  @Test
  void thisJvmsFlagsAreRead() {
    Jit jit = Jit.ofThisJvm();
    assertTrue(jit.module());
    assertEquals(Optional.of("true"), jit.useCompiler());
    assertTrue(jit.maxVectorSize().isPresent());
    assertEquals(System.getProperty("os.arch"), jit.arch());
  }

  /**
   * Fresh JVMs started with the flags of machines that cannot compile the Vector API take every
   * scalar kernel (where they did not, the softmax and GELU passes ran 1,000 times slower than
   * scalar code); one started as the job starts takes the vector ones. x86-64 only: the flags
   * are x86's.
   */
  @Slow
  @Test
  void freshJvmsWithoutAvxFmaOrC2TakeTheScalarKernels() throws Exception {
    String arch = System.getProperty("os.arch");
    assumeTrue(arch.equals("amd64") || arch.equals("x86_64"), "x86 flags");
    assumeTrue(VectorApi.used(), "this JVM compiles the Vector API: " + VectorApi.decision());
    assertEquals(List.of("VectorElementwise (" + jdk.incubator.vector.FloatVector
        .SPECIES_PREFERRED.vectorBitSize() + "-bit)", "VectorInt8Passes", "VectorBfloat16Passes",
        "fused multiply-add true"), probe().subList(0, 4));
    assertEquals(List.of("ScalarElementwise (UseAVX=0: Java 17's C2 compiles no vector max or "
        + "min of floats without AVX (nor fused multiply-add))", "ScalarInt8Passes",
        "ScalarBfloat16Passes", "fused multiply-add false"), probe("-XX:UseAVX=0").subList(0, 4));
    List<String> noFma = probe("-XX:-UseFMA");
    assertFalse(noFma.get(0).startsWith("Vector"), noFma.get(0));
    assertEquals("fused multiply-add false", noFma.get(3));
    // the scalar GELU of the reduced precisions without Math.fma (580 ns a call there): as close
    double worst = Double.parseDouble(noFma.get(4));
    assertTrue(worst < 4e-7, "rational GELU without fma: worst error " + worst);
    assertFalse(probe("-XX:TieredStopAtLevel=1").get(0).startsWith("Vector"));
  }

  private static List<String> probe(String... flags) throws Exception {
    List<String> options = new ArrayList<>(List.of(flags));
    options.add("--add-modules=jdk.incubator.vector");
    ChildJvm.Result probe = ChildJvm.run(VectorKernelsProbe.class, Map.of(), options);
    assertEquals(0, probe.exitCode(), probe.out() + probe.err());
    return List.of(probe.lines());
  }

  private static Jit withAvx(Jit jit, String level) {
    return new Jit(jit.module(), jit.arch(), jit.useCompiler(), jit.tieredCompilation(),
        jit.tieredStopAtLevel(), jit.maxVectorSize(), jit.useFma(), Optional.of(level));
  }
}
