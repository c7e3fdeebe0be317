package io.corpus.encoder.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link RationalErf#gelu} lane for lane, for the passes that apply a GELU as a reduced-precision
 * product is read back ({@link VectorInt8Passes}, {@link VectorBfloat16Passes}); loaded only
 * where the JVM has {@code jdk.incubator.vector}.
 */
final class VectorRationalErf {
  static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
  private static final FloatVector A1 = FloatVector.broadcast(F, RationalErf.A1);
  private static final FloatVector A3 = FloatVector.broadcast(F, RationalErf.A3);
  private static final FloatVector A5 = FloatVector.broadcast(F, RationalErf.A5);
  private static final FloatVector A7 = FloatVector.broadcast(F, RationalErf.A7);
  private static final FloatVector A9 = FloatVector.broadcast(F, RationalErf.A9);
  private static final FloatVector A11 = FloatVector.broadcast(F, RationalErf.A11);
  private static final FloatVector A13 = FloatVector.broadcast(F, RationalErf.A13);
  private static final FloatVector B0 = FloatVector.broadcast(F, RationalErf.B0);
  private static final FloatVector B2 = FloatVector.broadcast(F, RationalErf.B2);
  private static final FloatVector B4 = FloatVector.broadcast(F, RationalErf.B4);
  private static final FloatVector B6 = FloatVector.broadcast(F, RationalErf.B6);
  private static final FloatVector B8 = FloatVector.broadcast(F, RationalErf.B8);

  private VectorRationalErf() {}

  /** x·Φ(x) for each lane of v. */
  static FloatVector gelu(FloatVector v) {
    FloatVector x = v.mul(RationalErf.SQRT_HALF).max(-RationalErf.LIMIT)
        .min(RationalErf.LIMIT);
    FloatVector x2 = x.mul(x);
    FloatVector p = x2.fma(A13, A11).fma(x2, A9).fma(x2, A7).fma(x2, A5).fma(x2, A3)
        .fma(x2, A1).mul(x);
    FloatVector q = x2.fma(B8, B6).fma(x2, B4).fma(x2, B2).fma(x2, B0);
    return v.mul(0.5f).mul(p.div(q).add(1f));
  }
}
