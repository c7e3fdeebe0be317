package io.corpus.encoder.kernel;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.Optional;

/**
 * Whether this JVM's kernels run on the Vector API ({@code --add-modules jdk.incubator.vector},
 * set in {@code jobs/jvm.options}), and the kernels written on it, loaded by name so that a JVM
 * without it never links them.
 *
 * <p>Having the module is not enough: a Vector API call is fast only where C2 compiles it to
 * vector instructions, and where it cannot, it runs as Java objects a lane at a time, up to 2,500
 * times slower than the scalar kernels (measured on the softmax and GELU passes: about 17,000 ns
 * a float on x86 without AVX, 31,000 without FMA, 560 with C1 alone, 56 on vectors of two lanes,
 * against 12 for the scalar passes and 0.85 for the vector ones compiled). So the vector kernels
 * are used only where the JIT's own flags say it compiles them: x86-64 or AArch64, C2 on, vectors
 * of at least 128 bits, fused multiply-add, and on x86 AVX (Java 17's C2 has no vector max or min
 * of floats without it). System property {@value #PROPERTY} pins the choice: {@code auto} (the
 * default), {@code on} or {@code off}.
 */
public final class VectorApi {
  static final String PROPERTY = "encoder.vector-kernels";
  private static final String MODULE = "jdk.incubator.vector";

  private VectorApi() {}

  /** Whether the vector kernels are used in this JVM, and why, in a phrase. */
  record Decision(boolean use, String reason) {}

  /**
   * What the decision reads from the JVM: its architecture and the JIT's flags as it runs
   * ({@code UseAVX} and the like, empty where this JVM has no such flag).
   */
  record Jit(boolean module, String arch, Optional<String> useCompiler,
      Optional<String> tieredCompilation, Optional<String> tieredStopAtLevel,
      Optional<String> maxVectorSize, Optional<String> useFma, Optional<String> useAvx) {

    static Jit ofThisJvm() {
      boolean module = ModuleLayer.boot().findModule(MODULE).isPresent();
      String arch = System.getProperty("os.arch", "");
      HotSpotDiagnosticMXBean flags;
      try {
        flags = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      } catch (RuntimeException | LinkageError e) {
        flags = null;
      }
      return new Jit(module, arch, flag(flags, "UseCompiler"), flag(flags, "TieredCompilation"),
          flag(flags, "TieredStopAtLevel"), flag(flags, "MaxVectorSize"), flag(flags, "UseFMA"),
          flag(flags, "UseAVX"));
    }

    private static Optional<String> flag(HotSpotDiagnosticMXBean flags, String name) {
      if (flags == null) {
        return Optional.empty();
      }
      try {
        return Optional.of(flags.getVMOption(name).getValue());
      } catch (IllegalArgumentException e) {   // not a flag of this JVM or architecture
        return Optional.empty();
      }
    }
  }

  /** This JVM's flags and decision, read and made once. */
  private static final class Decided {
    static final Jit JIT = Jit.ofThisJvm();
    static final Decision DECISION = decide(JIT, System.getProperty(PROPERTY, "auto"));
  }

  static Decision decision() {
    return Decided.DECISION;
  }

  /**
   * Whether {@code Math.fma} is the processor's instruction in this JVM (its {@code UseFMA}; true
   * where the flag cannot be read). Without it Java computes a float fma in BigDecimal: 580 ns a
   * call here under {@code -XX:-UseFMA}, against 1.1 ns.
   */
  static boolean fusedMultiplyAdd() {
    return Decided.JIT.useFma().filter("false"::equals).isEmpty();
  }

  /** Whether the kernels on the Vector API are used in this JVM. */
  static boolean used() {
    return decision().use();
  }

  /**
   * Refuses a {@value #PROPERTY} other than auto, on or off, naming it: called by the driver
   * before any kernel is chosen, since the choice is made once, in a class's initializer.
   */
  public static void checkProperty() {
    pin(System.getProperty(PROPERTY, "auto"));
  }

  private static String pin(String pinned) {
    String pin = pinned.trim().toLowerCase(Locale.ROOT);
    if (!pin.equals("auto") && !pin.equals("on") && !pin.equals("off")) {
      throw new IllegalArgumentException("-D" + PROPERTY + " is '" + pinned
          + "'; it takes auto, on or off");
    }
    return pin;
  }

  /** The decision for a JVM with these flags and {@value #PROPERTY} set to {@code pinned}. */
  static Decision decide(Jit jit, String pinned) {
    String pin = pin(pinned);
    if (!jit.module()) {
      return new Decision(false, "the JVM lacks --add-modules " + MODULE
          + " (jobs/jvm.options has it)");
    }
    if (!pin.equals("auto")) {
      return new Decision(pin.equals("on"), PROPERTY + " = " + pin);
    }
    boolean x86 = jit.arch().equals("amd64") || jit.arch().equals("x86_64");
    if (!x86 && !jit.arch().equals("aarch64")) {
      return new Decision(false, "os.arch " + jit.arch() + ": Java 17 compiles the Vector API "
          + "to vector instructions on x86-64 and AArch64 only");
    }
    if (jit.useCompiler().isEmpty()) {   // not HotSpot: nothing to go by, the module decides
      return new Decision(true, "the JIT's flags could not be read (not HotSpot?)");
    }
    if (jit.useCompiler().get().equals("false")) {
      return new Decision(false, "the JVM interprets (-Xint): no vector instructions");
    }
    if (jit.tieredCompilation().filter("true"::equals).isPresent()
        && jit.tieredStopAtLevel().map(Integer::parseInt).filter(level -> level < 4)
        .isPresent()) {
      return new Decision(false, "TieredStopAtLevel=" + jit.tieredStopAtLevel().get()
          + ": without C2 no Vector API call is compiled to vector instructions");
    }
    if (jit.maxVectorSize().map(Integer::parseInt).filter(bytes -> bytes < 16).isPresent()) {
      return new Decision(false, "MaxVectorSize=" + jit.maxVectorSize().get()
          + ": vectors of fewer than four floats");
    }
    if (x86 && jit.useAvx().filter("0"::equals).isPresent()) {
      return new Decision(false, "UseAVX=0: Java 17's C2 compiles no vector max or min of "
          + "floats without AVX (nor fused multiply-add)");
    }
    if (jit.useFma().filter("false"::equals).isPresent()) {
      return new Decision(false, "UseFMA=false: the processor or the JVM has no fused "
          + "multiply-add, which C2 needs to compile the vector kernels' fma");
    }
    return new Decision(true, jit.useAvx().map(level -> "UseAVX=" + level + ", ").orElse("")
        + "fused multiply-add, C2");
  }

  /**
   * A new {@code className} (a {@code type} on the Vector API, with a no-argument constructor),
   * or null where this JVM does not use the Vector API or cannot load the class.
   */
  static <T> T load(Class<T> type, String className) {
    if (!used()) {
      return null;
    }
    try {
      return type.cast(Class.forName(className).getDeclaredConstructor().newInstance());
    } catch (ReflectiveOperationException | LinkageError e) {
      return null;
    }
  }
}
