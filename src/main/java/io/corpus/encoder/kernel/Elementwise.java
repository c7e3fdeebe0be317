package io.corpus.encoder.kernel;

import java.util.logging.Logger;

/**
 * The element-wise passes whose cost is transcendental functions: softmax (exp) and the GELUs
 * (erf through exp, tanh). Java's {@code Math.exp} costs about 25 ns here, which would make them
 * as slow as the matrix products around them; the Vector API's lane-wise EXP and TANH run at
 * about half a nanosecond per float. {@link #INSTANCE} is the vector implementation when the JVM
 * has the {@code jdk.incubator.vector} module ({@code --add-modules jdk.incubator.vector}, set in
 * {@code jobs/jvm.options}), else the scalar one, with a warning. Chosen once, here.
 */
public interface Elementwise {
  Elementwise INSTANCE = Choice.choose();

  /** Softmax of {@code x[offset, offset + length)} in place; -inf entries get weight 0; a row of
   *  only -inf becomes zeros. */
  void softmax(float[] x, int offset, int length);

  /** x·Φ(x) in place, with erf to float precision. */
  void gelu(float[] x, int offset, int length);

  /** 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) in place. */
  void geluTanh(float[] x, int offset, int length);

  /** Picks the implementation once and says which. */
  final class Choice {
    private Choice() {}

    static Elementwise choose() {
      Logger log = Logger.getLogger(Elementwise.class.getName());
      if (ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()) {
        try {
          return (Elementwise) Class.forName("io.corpus.encoder.kernel.VectorElementwise")
              .getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
          log.warning("Vector API present but unusable (" + e + "); softmax and GELU run scalar");
        }
      } else {
        log.warning("The JVM lacks --add-modules jdk.incubator.vector: softmax and GELU use "
            + "Math.exp, about 2x slower per layer. jobs/jvm.options has the flag.");
      }
      return new ScalarElementwise();
    }
  }
}
