package io.corpus.encoder.kernel;

import static io.corpus.encoder.kernel.ErfCoefficients.A1;
import static io.corpus.encoder.kernel.ErfCoefficients.A2;
import static io.corpus.encoder.kernel.ErfCoefficients.A3;
import static io.corpus.encoder.kernel.ErfCoefficients.A4;
import static io.corpus.encoder.kernel.ErfCoefficients.A5;
import static io.corpus.encoder.kernel.ErfCoefficients.P;

import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link Elementwise} on the Vector API: whole vectors of floats per step, EXP and TANH through
 * the JVM's vector math intrinsics. Loaded only when the incubator module is present. Tails
 * shorter than a vector use a masked step.
 */
final class VectorElementwise implements Elementwise {
  private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
  private static final float SQRT_HALF = (float) Math.sqrt(0.5);
  private static final float SQRT_2_OVER_PI = (float) Math.sqrt(2.0 / Math.PI);
  private static final FloatVector ONE = FloatVector.broadcast(S, 1f);

  @Override
  public void softmax(float[] x, int offset, int length) {
    int end = offset + length;
    FloatVector maxes = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
    for (int i = offset; i < end; i += S.length()) {
      VectorMask<Float> m = S.indexInRange(i, end);
      maxes = maxes.lanewise(VectorOperators.MAX,
          FloatVector.fromArray(S, x, i, m).blend(Float.NEGATIVE_INFINITY, m.not()));
    }
    float max = maxes.reduceLanes(VectorOperators.MAX);
    if (max == Float.NEGATIVE_INFINITY) {
      Arrays.fill(x, offset, end, 0f);
      return;
    }
    FloatVector sums = FloatVector.zero(S);
    for (int i = offset; i < end; i += S.length()) {
      VectorMask<Float> m = S.indexInRange(i, end);
      FloatVector e = FloatVector.fromArray(S, x, i, m).sub(max).lanewise(VectorOperators.EXP);
      e.intoArray(x, i, m);
      sums = sums.add(e, m);
    }
    float inverse = 1f / sums.reduceLanes(VectorOperators.ADD);
    for (int i = offset; i < end; i += S.length()) {
      VectorMask<Float> m = S.indexInRange(i, end);
      FloatVector.fromArray(S, x, i, m).mul(inverse).intoArray(x, i, m);
    }
  }

  @Override
  public void gelu(float[] x, int offset, int length) {
    int end = offset + length;
    for (int i = offset; i < end; i += S.length()) {
      VectorMask<Float> m = S.indexInRange(i, end);
      FloatVector v = FloatVector.fromArray(S, x, i, m);
      FloatVector z = v.abs().mul(SQRT_HALF);                         // |x| / √2
      FloatVector t = ONE.div(z.fma(P, 1f));                          // 1 / (1 + p z)
      FloatVector poly = t.fma(A5, A4).mul(t).add(A3).mul(t).add(A2).mul(t).add(A1).mul(t);
      FloatVector tail = poly.mul(z.mul(z).neg().lanewise(VectorOperators.EXP)); // 1 − erf(|z|)
      // 1 + erf(x/√2): 2 − tail for x ≥ 0, tail for x < 0 (no cancellation for large negative x).
      FloatVector onePlusErf = tail.neg().add(2f).blend(tail, v.lt(0f));
      v.mul(0.5f).mul(onePlusErf).intoArray(x, i, m);
    }
  }

  @Override
  public void geluTanh(float[] x, int offset, int length) {
    int end = offset + length;
    for (int i = offset; i < end; i += S.length()) {
      VectorMask<Float> m = S.indexInRange(i, end);
      FloatVector v = FloatVector.fromArray(S, x, i, m);
      FloatVector inner = v.mul(v).fma(0.044715f, 1f).mul(v).mul(SQRT_2_OVER_PI);
      v.mul(0.5f).mul(inner.lanewise(VectorOperators.TANH).add(1f)).intoArray(x, i, m);
    }
  }
}
