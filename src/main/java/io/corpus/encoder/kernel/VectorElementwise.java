package io.corpus.encoder.kernel;

import static io.corpus.encoder.kernel.ErfCoefficients.A1;
import static io.corpus.encoder.kernel.ErfCoefficients.A2;
import static io.corpus.encoder.kernel.ErfCoefficients.A3;
import static io.corpus.encoder.kernel.ErfCoefficients.A4;
import static io.corpus.encoder.kernel.ErfCoefficients.A5;
import static io.corpus.encoder.kernel.ErfCoefficients.P;

import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link Elementwise} on the Vector API: a whole vector of floats per step. Loops run whole
 * vectors unmasked (masks are slow in Java 17's Vector API) and finish the tail in scalar code or
 * one masked step. Loaded only when the incubator module is present.
 *
 * <p>Deterministic: the same input gives the same bits whether a loop runs interpreted or
 * compiled. The Vector API's own EXP and TANH are not (compiled, they call the JIT's vector math
 * library; interpreted, {@code Math.exp}, which rounds differently), nor is
 * {@code reduceLanes(ADD)} (its order is unspecified). So exp is computed here from +, ×, fma and
 * bit operations, which are exactly rounded everywhere, and sums are added lane by lane in order.
 * Without this a rerun, or a task retried on another executor, could differ in the last bits.
 */
final class VectorElementwise implements Elementwise {
  private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
  private static final float SQRT_HALF = (float) Math.sqrt(0.5);
  private static final float SQRT_2_OVER_PI = (float) Math.sqrt(2.0 / Math.PI);
  private static final FloatVector ONE = FloatVector.broadcast(S, 1f);
  // exp(x) = 2^n · exp(r), n = round(x / ln 2), r = x − n ln 2 in two parts (Cody and Waite);
  // exp(r) on |r| ≤ ln 2 / 2 by the Cephes expf polynomial, about 1 ulp.
  private static final float LOG2E = 1.44269504088896341f;
  private static final float LN2_HI = 0.693359375f;
  private static final float LN2_LO = -2.12194440e-4f;
  private static final float ROUNDING = 12582912f;   // 1.5 · 2^23: adding it rounds to an integer
  private static final int ROUNDING_BITS = Float.floatToIntBits(ROUNDING);
  private static final float LOG_SMALLEST = Float.MIN_NORMAL;   // 0 ln 0 = 0 below this
  private static final FloatVector LOG_P0 = FloatVector.broadcast(S, 7.0376836292e-2f);
  private static final FloatVector LOG_P1 = FloatVector.broadcast(S, -1.1514610310e-1f);
  private static final FloatVector LOG_P2 = FloatVector.broadcast(S, 1.1676998740e-1f);
  private static final FloatVector LOG_P3 = FloatVector.broadcast(S, -1.2420140846e-1f);
  private static final FloatVector LOG_P4 = FloatVector.broadcast(S, 1.4249322787e-1f);
  private static final FloatVector LOG_P5 = FloatVector.broadcast(S, -1.6668057665e-1f);
  private static final FloatVector LOG_P6 = FloatVector.broadcast(S, 2.0000714765e-1f);
  private static final FloatVector LOG_P7 = FloatVector.broadcast(S, -2.4999993993e-1f);
  private static final FloatVector LOG_P8 = FloatVector.broadcast(S, 3.3333331174e-1f);
  // exp's arguments are clamped here, where round(x / ln 2) = −127: the exponent field of 2^n
  // comes out 0, so exp(x) is +0 from about −87.68 down to −∞ with no compare and blend
  private static final float EXP_FLOOR = (float) (-127 * Math.log(2));
  private static final int EXP_FLOOR_BITS = Float.floatToIntBits(EXP_FLOOR);
  private static final FloatVector LN2_LO_VECTOR = FloatVector.broadcast(S, LN2_LO);
  private static final FloatVector NEG_LN2_HI = FloatVector.broadcast(S, -LN2_HI);
  private static final FloatVector EXP_P0 = FloatVector.broadcast(S, 1.9875691500e-4f);
  private static final FloatVector EXP_P1 = FloatVector.broadcast(S, 1.3981999507e-3f);
  private static final FloatVector EXP_P2 = FloatVector.broadcast(S, 8.3334519073e-3f);
  private static final FloatVector EXP_P3 = FloatVector.broadcast(S, 4.1665795894e-2f);
  private static final FloatVector EXP_P4 = FloatVector.broadcast(S, 1.6666665459e-1f);
  private static final FloatVector EXP_P5 = FloatVector.broadcast(S, 5.0000001201e-1f);

  /** Largest shift − x {@link #expShiftedMoments} weighs by: exp(−10⁴) is 0 in float. */
  private static final float MOMENT_CAP = 1e4f;
  private static final int MOMENT_CAP_BITS = Float.floatToIntBits(-MOMENT_CAP);

  @Override
  public String describe() {
    return "VectorElementwise (" + S.vectorBitSize() + "-bit)";
  }

  @Override
  public float max(float[] x, int offset, int length) {
    int end = offset + length;
    int bound = offset + S.loopBound(length);
    int lanes = S.length();
    // two running maxes, so that each vector's max waits on half the chain; max is exact, so
    // the result is the same whatever the order
    FloatVector maxes = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
    FloatVector others = maxes;
    int i = offset;
    for (; i + lanes < bound; i += 2 * lanes) {
      maxes = maxes.max(FloatVector.fromArray(S, x, i));
      others = others.max(FloatVector.fromArray(S, x, i + lanes));
    }
    if (i < bound) {
      maxes = maxes.max(FloatVector.fromArray(S, x, i));
      i += lanes;
    }
    float max = maxes.max(others).reduceLanes(VectorOperators.MAX);
    for (; i < end; i++) {
      max = Math.max(max, x[i]);
    }
    return max;
  }

  @Override
  public float expShifted(float[] x, int offset, int length, float shift) {
    if (!Float.isFinite(shift)) {
      return expShiftedAnyShift(x, offset, length, shift);
    }
    FloatVector shifts = FloatVector.broadcast(S, shift);
    int end = offset + length;
    int bound = offset + S.loopBound(length);
    FloatVector sums = FloatVector.zero(S);
    int i = offset;
    for (; i < bound; i += S.length()) {
      FloatVector e = expClamped(atFloor(shifts.sub(FloatVector.fromArray(S, x, i))));
      e.intoArray(x, i);
      sums = sums.add(e);
    }
    if (i < end) {
      VectorMask<Float> m = S.indexInRange(i, end);
      FloatVector e = expClamped(atFloor(shifts.sub(FloatVector.fromArray(S, x, i, m))));
      e.intoArray(x, i, m);
      sums = sums.add(e, m);
    }
    return sumLanes(sums);
  }

  /**
   * −d at least {@link #EXP_FLOOR}, for d = shift − x ≥ +0 and never NaN: −d is then at most
   * −0, where the float order is the reverse of the bits' as signed integers, so the clamp is
   * one integer min. FloatVector.max compiles to six instructions, for Math.max's NaN and −0;
   * the min took a 256-key row's max and exponential from about 100 ns to about 88 (Zen 5, 512
   * bits; speed.md). −(shift − x) is x − shift exactly, but for −0 where they are equal (exp
   * gives 1 either way): the same bits as {@link #expNonPositive} of x − shift.
   */
  private static FloatVector atFloor(FloatVector d) {
    return notBelow(d.neg(), EXP_FLOOR_BITS);
  }

  /**
   * max(v, floor) for v whose every entry has its sign bit set (−0 included) and is not NaN, and
   * a negative floor given by its bits: one integer min (see {@link #atFloor}).
   */
  private static FloatVector notBelow(FloatVector v, int floorBits) {
    return v.reinterpretAsInts().min(floorBits).reinterpretAsFloats();
  }

  /**
   * {@link #expShifted} for a shift of ±∞ or NaN (a row of masked keys alone, or a NaN or +∞
   * among its scores): their sum 0 or NaN.
   */
  private static float expShiftedAnyShift(float[] x, int offset, int length, float shift) {
    float sum = 0f;
    for (int i = offset; i < offset + length; i++) {
      x[i] = expBeyondFinite(x[i] - shift);
      sum += x[i];
    }
    return sum;
  }

  /**
   * The exponential of x − shift where the shift is ±∞ or NaN, so that x − shift is ±∞ or NaN:
   * 0 at −∞ and NaN otherwise, as {@link #expNonPositive} gives.
   */
  private static float expBeyondFinite(float d) {
    return d == Float.NEGATIVE_INFINITY ? 0f : Float.NaN;
  }

  /**
   * A row's terms: its entropy's (negated, below) then its distance's, a vector of each, added
   * up lane by lane over the row's calls; the scratch after every row's: the last vector's x,
   * its positions, the lanes of Σ e.
   */
  @Override
  public int momentFloats(int rows) {
    return (2 * rows + 3) * S.length();
  }

  /**
   * Vectors at a time, the last one through scratch of full width at the end of {@code moments}
   * (padding at −∞, which adds nothing): one body, so the JIT inlines its exponential and keeps
   * every vector in registers. Masked loads and a second body tipped the method past C2's
   * inlining budget, and its lane sums, called instead, boxed the running sums of every step:
   * 3.4 KB of garbage a call, 86 % of a long document's allocations with statistics on. Σ e is
   * halved lane by lane in the scratch, in {@link #sumLanes}'s order: the same bits. The row's
   * terms stay in their lanes, rescaled by {@code carry}, and are added up once, by
   * {@link #momentSums}: adding them up at every call cost a third of the call on 256 keys.
   * Where the shift is finite both clamps are integer mins on the bits of −(shift − x), as in
   * {@link #expShifted}.
   */
  @Override
  public float expShiftedMoments(float[] x, int offset, int length, float shift,
      float[] positions, float center, float[] moments, int row, float carry) {
    int lanes = S.length();
    int at = 2 * row * lanes;
    if (!Float.isFinite(shift)) {
      return expShiftedMomentsAnyShift(x, offset, length, shift, positions, center, moments, at,
          carry);
    }
    FloatVector shifts = FloatVector.broadcast(S, shift);
    int tailX = moments.length - 3 * lanes;
    int tailPositions = tailX + lanes;
    int sumLanes = tailPositions + lanes;
    FloatVector sums = FloatVector.zero(S);
    // entropy adds (x − shift)·e, the negated terms: −(shift − x) is exact
    FloatVector entropy = carry == 0f ? FloatVector.zero(S)
        : FloatVector.fromArray(S, moments, at).mul(carry);
    FloatVector distance = carry == 0f ? FloatVector.zero(S)
        : FloatVector.fromArray(S, moments, at + lanes).mul(carry);
    for (int j = 0; j < length; j += lanes) {
      boolean whole = j + lanes <= length;
      float[] xs = x;
      int xAt = offset + j;
      float[] ps = positions;
      int pAt = j;
      if (!whole) {
        Arrays.fill(moments, tailX, tailX + lanes, Float.NEGATIVE_INFINITY);
        Arrays.fill(moments, tailPositions, tailPositions + lanes, 0f);
        System.arraycopy(x, offset + j, moments, tailX, length - j);
        System.arraycopy(positions, j, moments, tailPositions, length - j);
        xs = moments;
        xAt = tailX;
        ps = moments;
        pAt = tailPositions;
      }
      // x − shift as −(shift − x), at least −10⁴: a masked entry's e is 0 and its term 0, not
      // 0 · ∞; below exp's underflow either way, so e has expShifted's bits (where x is the
      // shift, −0: its term −0, the row's sums the same)
      FloatVector above = notBelow(shifts.sub(FloatVector.fromArray(S, xs, xAt)).neg(),
          MOMENT_CAP_BITS);
      FloatVector e = expClamped(notBelow(above, EXP_FLOOR_BITS));
      e.intoArray(xs, xAt);
      sums = sums.add(e);
      FloatVector far = FloatVector.fromArray(S, ps, pAt).sub(center).abs();
      entropy = above.fma(e, entropy);
      distance = far.fma(e, distance);
      if (!whole) {
        System.arraycopy(moments, tailX, x, offset + j, length - j);
      }
    }
    entropy.intoArray(moments, at);
    distance.intoArray(moments, at + lanes);
    sums.intoArray(moments, sumLanes);
    return halvedSum(moments, sumLanes);
  }

  /**
   * {@link #expShiftedMoments} for a shift of ±∞ or NaN, entry by entry into the lanes the
   * vectors use: e is {@link #expBeyondFinite}'s, its terms −10⁴ · 0 and 0 where e is 0, as the
   * vector pass gives.
   */
  private static float expShiftedMomentsAnyShift(float[] x, int offset, int length, float shift,
      float[] positions, float center, float[] moments, int at, float carry) {
    int lanes = S.length();
    for (int l = at; l < at + 2 * lanes; l++) {
      moments[l] = carry == 0f ? 0f : moments[l] * carry;
    }
    float sum = 0f;
    for (int j = 0; j < length; j++) {
      float d = x[offset + j] - shift;
      float above = Math.max(d, -MOMENT_CAP);
      float e = expBeyondFinite(d);
      int lane = at + j % lanes;
      moments[lane] = Math.fma(above, e, moments[lane]);
      moments[lane + lanes] = Math.fma(Math.abs(positions[j] - center), e, moments[lane + lanes]);
      x[offset + j] = e;
      sum += e;
    }
    return sum;
  }

  @Override
  public void momentSums(float[] moments, int row, double[] sums) {
    int lanes = S.length();
    int at = 2 * row * lanes;
    double entropy = 0;
    double distance = 0;
    for (int i = 0; i < lanes; i++) {
      entropy -= moments[at + i];
      distance += moments[at + lanes + i];
    }
    sums[0] = entropy;
    sums[1] = distance;
  }

  /**
   * The sum of the vector's lanes stored at {@code at}, added as {@link #sumLanes} adds them
   * (lane i + w onto lane i, w halving): the same bits.
   */
  private static float halvedSum(float[] lanes, int at) {
    for (int w = S.length() / 2; w >= 1; w /= 2) {
      for (int i = 0; i < w; i++) {
        lanes[at + i] += lanes[at + i + w];
      }
    }
    return lanes[at];
  }

  @Override
  public void expColumns(float[] x, int rows, int cols, float[] maxes, float[] sums) {
    int bound = S.loopBound(cols);
    int tail = cols - bound;
    // The last cols % L columns go through scratch vectors of full width instead of masked loads
    // and stores, which JDK 17 runs lane by lane in Java (most columns of short sequences are
    // such a tail). Each lane computes exactly as the full vectors do: the same bits.
    float[] xTail = new float[S.length()];
    float[] maxTail = new float[S.length()];
    Arrays.fill(maxes, 0, cols, Float.NEGATIVE_INFINITY);
    Arrays.fill(maxTail, Float.NEGATIVE_INFINITY);
    for (int r = 0; r < rows; r++) {
      int row = r * cols;
      maxInto(x, row, bound, maxes);
      if (tail > 0) {
        System.arraycopy(x, row + bound, xTail, 0, tail);
        maxInto(xTail, 0, S.length(), maxTail);
      }
    }
    System.arraycopy(maxTail, 0, maxes, bound, tail);
    for (int c = 0; c < cols; c++) {         // a column of only −∞: exp(−∞ − 0) = 0, not NaN
      if (maxes[c] == Float.NEGATIVE_INFINITY) {
        maxes[c] = 0f;
      }
    }
    System.arraycopy(maxes, bound, maxTail, 0, tail);
    float[] sumTail = new float[S.length()];
    Arrays.fill(sums, 0, cols, 0f);
    for (int r = 0; r < rows; r++) {
      int row = r * cols;
      expInto(x, row, bound, maxes, sums);
      if (tail > 0) {
        System.arraycopy(x, row + bound, xTail, 0, tail);
        expInto(xTail, 0, S.length(), maxTail, sumTail);
        System.arraycopy(xTail, 0, x, row + bound, tail);
      }
    }
    System.arraycopy(sumTail, 0, sums, bound, tail);
  }

  // The whole-vector columns of one row, each pass in a method of its own: the JIT compiles
  // them once, where inside expColumns' loops over rows and columns it compiled each loop on its
  // own (on-stack replacement) and recompiled them as sequence lengths changed, ten C2
  // compilations and 1.3 s of compiler time in the first seconds of a real-text job.

  /** maxes[c] = max(maxes[c], x[row + c]) for c < bound. */
  private static void maxInto(float[] x, int row, int bound, float[] maxes) {
    for (int c = 0; c < bound; c += S.length()) {
      FloatVector.fromArray(S, x, row + c).max(FloatVector.fromArray(S, maxes, c))
          .intoArray(maxes, c);
    }
  }

  /** x[row + c] = exp(x[row + c] − maxes[c]), added to sums[c], for c < bound. */
  private static void expInto(float[] x, int row, int bound, float[] maxes, float[] sums) {
    for (int c = 0; c < bound; c += S.length()) {
      FloatVector e = expNonPositive(FloatVector.fromArray(S, x, row + c)
          .sub(FloatVector.fromArray(S, maxes, c)));
      e.intoArray(x, row + c);
      e.add(FloatVector.fromArray(S, sums, c)).intoArray(sums, c);
    }
  }

  @Override
  public float entropy(float[] a, int offset, int length) {
    int end = offset + length;
    int bound = offset + S.loopBound(length);
    FloatVector sums = FloatVector.zero(S);
    int i = offset;
    for (; i < bound; i += S.length()) {
      FloatVector v = FloatVector.fromArray(S, a, i);
      sums = sums.add(v.mul(logPositive(v)).blend(0f, v.lt(LOG_SMALLEST)));
    }
    float sum = -sumLanes(sums);
    for (; i < end; i++) {
      if (a[i] >= LOG_SMALLEST) {
        sum -= a[i] * (float) Math.log(a[i]);
      }
    }
    return sum;
  }

  @Override
  public float weightedDistance(float[] a, int offset, int length, float[] positions,
      float center) {
    int bound = S.loopBound(length);
    FloatVector sums = FloatVector.zero(S);
    int j = 0;
    for (; j < bound; j += S.length()) {
      FloatVector distance = FloatVector.fromArray(S, positions, j).sub(center).abs();
      sums = distance.fma(FloatVector.fromArray(S, a, offset + j), sums);
    }
    float sum = sumLanes(sums);
    for (; j < length; j++) {
      sum += a[offset + j] * Math.abs(positions[j] - center);
    }
    return sum;
  }

  /**
   * ln(x) for normal x > 0 (smaller lanes give garbage; callers mask them), within about 1 ulp:
   * x = m · 2^e with m in [√½, √2), ln x = ln m + e ln 2, ln m by the Cephes logf polynomial.
   * Built from exact operations only, like {@link #expNonPositive}.
   */
  static FloatVector logPositive(FloatVector x) {
    IntVector bits = x.reinterpretAsInts();
    IntVector exponent = bits.lanewise(VectorOperators.LSHR, 23).sub(126);  // x = m · 2^e
    FloatVector m = bits.and(0x807fffff).or(0x3f000000).reinterpretAsFloats();   // m in [½, 1)
    FloatVector e = exponent.add(ROUNDING_BITS).reinterpretAsFloats().sub(ROUNDING);
    // m < √½: take 2m and e − 1 instead, so that f = m − 1 stays in [√½ − 1, √2 − 1)
    VectorMask<Float> small = m.lt(SQRT_HALF);
    e = e.sub(1f, small);
    FloatVector f = m.add(m, small).sub(1f);
    FloatVector z = f.mul(f);
    FloatVector y = f.fma(LOG_P0, LOG_P1).fma(f, LOG_P2).fma(f, LOG_P3).fma(f, LOG_P4)
        .fma(f, LOG_P5).fma(f, LOG_P6).fma(f, LOG_P7).fma(f, LOG_P8).mul(f).mul(z);
    y = e.fma(LN2_LO_VECTOR, y).add(z.mul(-0.5f));
    return f.add(y).add(e.mul(LN2_HI));
  }

  @Override
  public void scale(float[] x, int offset, int length, float factor) {
    int end = offset + length;
    int bound = offset + S.loopBound(length);
    int i = offset;
    for (; i < bound; i += S.length()) {
      FloatVector.fromArray(S, x, i).mul(factor).intoArray(x, i);
    }
    for (; i < end; i++) {
      x[i] *= factor;
    }
  }

  @Override
  public void biasActivation(Activation activation, float[] x, int rows, float[] bias) {
    // One loop per activation: with a switch inside the loop the JIT stops inlining the vector
    // calls, and the pass gets three times slower.
    switch (activation) {
      case RELU -> biasRelu(x, rows, bias);
      case GELU -> biasGelu(x, rows, bias);
      case GELU_TANH -> biasGeluTanh(x, rows, bias);
      case SILU -> biasSilu(x, rows, bias);
    }
  }

  private static void biasSilu(float[] x, int rows, float[] bias) {
    int width = bias.length;
    int bound = S.loopBound(width);
    for (int r = 0; r < rows; r++) {
      int base = r * width;
      int i = 0;
      for (; i < bound; i += S.length()) {
        silu(FloatVector.fromArray(S, x, base + i).add(FloatVector.fromArray(S, bias, i)))
            .intoArray(x, base + i);
      }
      if (i < width) {
        VectorMask<Float> m = S.indexInRange(i, width);
        silu(FloatVector.fromArray(S, x, base + i, m)
            .add(FloatVector.fromArray(S, bias, i, m))).intoArray(x, base + i, m);
      }
    }
  }

  /** x·σ(x) with e = exp(−|x|) ≤ 1: σ(x) is 1 / (1 + e) for x ≥ 0, e / (1 + e) below. */
  private static FloatVector silu(FloatVector v) {
    FloatVector e = expNonPositive(v.abs().neg());
    FloatVector inverse = ONE.div(ONE.add(e));
    return v.mul(inverse.blend(e.mul(inverse), v.lt(0f)));
  }

  private static void biasRelu(float[] x, int rows, float[] bias) {
    int width = bias.length;
    for (int r = 0; r < rows; r++) {
      for (int i = 0; i < width; i += S.length()) {
        VectorMask<Float> m = S.indexInRange(i, width);
        FloatVector v = FloatVector.fromArray(S, x, r * width + i, m);
        v.add(FloatVector.fromArray(S, bias, i, m)).max(0f).intoArray(x, r * width + i, m);
      }
    }
  }

  private static void biasGelu(float[] x, int rows, float[] bias) {
    int width = bias.length;
    int bound = S.loopBound(width);
    for (int r = 0; r < rows; r++) {
      int base = r * width;
      int i = 0;
      for (; i < bound; i += S.length()) {   // whole vectors: no mask on the hot path
        gelu(FloatVector.fromArray(S, x, base + i).add(FloatVector.fromArray(S, bias, i)))
            .intoArray(x, base + i);
      }
      if (i < width) {
        VectorMask<Float> m = S.indexInRange(i, width);
        gelu(FloatVector.fromArray(S, x, base + i, m).add(FloatVector.fromArray(S, bias, i, m)))
            .intoArray(x, base + i, m);
      }
    }
  }

  private static void biasGeluTanh(float[] x, int rows, float[] bias) {
    int width = bias.length;
    int bound = S.loopBound(width);
    for (int r = 0; r < rows; r++) {
      int base = r * width;
      int i = 0;
      for (; i < bound; i += S.length()) {
        geluTanh(FloatVector.fromArray(S, x, base + i).add(FloatVector.fromArray(S, bias, i)))
            .intoArray(x, base + i);
      }
      if (i < width) {
        VectorMask<Float> m = S.indexInRange(i, width);
        geluTanh(FloatVector.fromArray(S, x, base + i, m)
            .add(FloatVector.fromArray(S, bias, i, m))).intoArray(x, base + i, m);
      }
    }
  }

  /** x·Φ(x), erf by Abramowitz and Stegun 7.1.26. */
  private static FloatVector gelu(FloatVector v) {
    FloatVector z = v.abs().mul(SQRT_HALF);                          // |x| / √2
    FloatVector t = ONE.div(z.fma(P, 1f));                           // 1 / (1 + p z)
    FloatVector poly = t.fma(A5, A4).mul(t).add(A3).mul(t).add(A2).mul(t).add(A1).mul(t);
    FloatVector tail = poly.mul(expNonPositive(z.mul(z).neg()));    // 1 − erf(z)
    // 1 + erf(x/√2) is 2 − tail for x ≥ 0 and tail for x < 0: no cancellation for large −x.
    FloatVector onePlusErf = tail.neg().add(2f).blend(tail, v.lt(0f));
    return v.mul(0.5f).mul(onePlusErf);
  }

  private static FloatVector geluTanh(FloatVector v) {
    FloatVector inner = v.mul(v).fma(0.044715f, 1f).mul(v).mul(SQRT_2_OVER_PI);
    return v.mul(0.5f).mul(tanh(inner).add(1f));
  }

  /** tanh(x) = sign(x) · (1 − e) / (1 + e) with e = exp(−2|x|) ≤ 1: no overflow. */
  private static FloatVector tanh(FloatVector v) {
    FloatVector e = expNonPositive(v.abs().mul(-2f));
    FloatVector magnitude = ONE.sub(e).div(ONE.add(e));
    return magnitude.blend(magnitude.neg(), v.lt(0f));
  }

  /**
   * exp(x) for x ≤ 0 (negative infinity included, giving 0), within about 1 ulp down to
   * exp(x) = 2^−126 (x ≈ −87.34), subnormal below that, 0 below about −87.68; the same bits
   * interpreted or compiled. Arguments above 0 are not supported (they overflow past 88).
   * Clamping at {@link #EXP_FLOOR} instead of comparing with a bound and blending 0 in below it
   * took a 256-key softmax row from 78 to 91 ns to 58 to 68 (Zen 5, 512 bits; speed.md).
   */
  static FloatVector expNonPositive(FloatVector x) {
    return expClamped(x.max(EXP_FLOOR));
  }

  /** {@link #expNonPositive} of an x already at least {@link #EXP_FLOOR}. */
  private static FloatVector expClamped(FloatVector clamped) {
    FloatVector shifted = clamped.fma(LOG2E, ROUNDING);            // ROUNDING + round(x / ln 2)
    FloatVector n = shifted.sub(ROUNDING);
    FloatVector r = n.fma(NEG_LN2_HI, clamped).add(n.mul(-LN2_LO)); // x − n ln 2, n ln 2 exact
    // p(r) = P5 + P4 r + ... + P0 r⁵ by pairs in r² (Estrin), not Horner's chain of five fmas:
    // three independent fmas, then two. The shorter chain ran a softmax row's exponentials 17 to
    // 20 % faster in the job's expShifted on an AVX2 Zen 3 (speed.md), within the same ulp.
    FloatVector r2 = r.mul(r);
    FloatVector high = r.fma(EXP_P0, EXP_P1).fma(r2, r.fma(EXP_P2, EXP_P3));
    FloatVector p = high.fma(r2, r.fma(EXP_P4, EXP_P5));
    FloatVector expR = p.fma(r2, r).add(1f);                         // 1 + r + r² p(r)
    // The low bits of ROUNDING + n hold n itself: 2^n is (n + 127) << 23 read as a float.
    FloatVector twoToN = shifted.reinterpretAsInts().add(127 - ROUNDING_BITS)
        .lanewise(VectorOperators.LSHL, 23).reinterpretAsFloats();
    return expR.mul(twoToN);
  }

  /**
   * Shuffles that bring lane i + w onto lane i, for w = 32, 16, ... 1: the halving steps of
   * {@link #sumLanes}, each a constant C2 compiles to one permute; those of w at least the
   * vector's lanes are never used. x86 vectors hold at most 16 floats, SVE's 64.
   */
  private static final VectorShuffle<Float> PLUS_32 = rotation(32);
  private static final VectorShuffle<Float> PLUS_16 = rotation(16);
  private static final VectorShuffle<Float> PLUS_8 = rotation(8);
  private static final VectorShuffle<Float> PLUS_4 = rotation(4);
  private static final VectorShuffle<Float> PLUS_2 = rotation(2);
  private static final VectorShuffle<Float> PLUS_1 = rotation(1);

  private static VectorShuffle<Float> rotation(int width) {
    if (S.length() > 64) {
      throw new IllegalStateException("vectors of " + S.length() + " floats: sumLanes halves 64");
    }
    return VectorShuffle.fromOp(S, i -> (i + width) % S.length());
  }

  /**
   * The lanes' sum by halving: lanes i and i + L/2 added, then i and i + L/4, ... down to lane
   * 0. Explicit shuffles and adds, so the order is the same in every tier of the JIT (as
   * {@code reduceLanes} does not promise), at a few instructions a call: the lane-by-lane sum
   * it replaces cost about 100 ns a call, as much as the exponentials of a 256-key row.
   */
  private static float sumLanes(FloatVector v) {
    if (S.length() > 32) {
      v = v.add(v.rearrange(PLUS_32));
    }
    if (S.length() > 16) {
      v = v.add(v.rearrange(PLUS_16));
    }
    if (S.length() > 8) {
      v = v.add(v.rearrange(PLUS_8));
    }
    if (S.length() > 4) {
      v = v.add(v.rearrange(PLUS_4));
    }
    if (S.length() > 2) {
      v = v.add(v.rearrange(PLUS_2));
    }
    if (S.length() > 1) {
      v = v.add(v.rearrange(PLUS_1));
    }
    return v.lane(0);
  }

  @Override
  public void layerNorm(float[] x, int xOffset, float[] y, int yOffset, int rows, float[] gamma,
      float[] beta, float eps) {
    int width = gamma.length;
    int bound = S.loopBound(width);
    for (int r = 0; r < rows; r++) {
      int xo = xOffset + r * width;
      int yo = yOffset + r * width;
      FloatVector sums = FloatVector.zero(S);
      int i = 0;
      for (; i < bound; i += S.length()) {
        sums = sums.add(FloatVector.fromArray(S, x, xo + i));
      }
      float sum = sumLanes(sums);
      for (int k = i; k < width; k++) {
        sum += x[xo + k];
      }
      float mean = sum / width;
      float inverseStd = ScalarElementwise.inverseRoot(squaresAbout(x, xo, width, mean), width,
          eps);
      for (i = 0; i < bound; i += S.length()) {
        FloatVector.fromArray(S, x, xo + i).sub(mean).mul(inverseStd)
            .fma(FloatVector.fromArray(S, gamma, i), FloatVector.fromArray(S, beta, i))
            .intoArray(y, yo + i);
      }
      for (; i < width; i++) {
        y[yo + i] = (x[xo + i] - mean) * inverseStd * gamma[i] + beta[i];
      }
    }
  }

  /**
   * Σ (x[at + i] − center)² over the row: in float lanes by fused multiply-adds, then across
   * lanes in {@link #sumLanes}'s order; the last entries past the vectors in double.
   */
  private static double squaresAbout(float[] x, int at, int width, float center) {
    int bound = S.loopBound(width);
    FloatVector squares = FloatVector.zero(S);
    int i = 0;
    for (; i < bound; i += S.length()) {
      FloatVector d = FloatVector.fromArray(S, x, at + i).sub(center);
      squares = d.fma(d, squares);
    }
    double sum = sumLanes(squares);
    for (; i < width; i++) {
      double d = x[at + i] - center;
      sum += d * d;
    }
    return sum;
  }

  /**
   * The squares summed as {@link #layerNorm} sums its own, about 0; the scalar pass's chain of
   * double additions took four cycles a float, 1.5 % of a Qwen3-shaped decoder's time (its query
   * and key norms and the layers').
   */
  @Override
  public void rmsNorm(float[] x, int xOffset, float[] y, int yOffset, int rows, int stride,
      float[] gamma, float eps) {
    int width = gamma.length;
    int bound = S.loopBound(width);
    for (int r = 0; r < rows; r++) {
      int xo = xOffset + r * stride;
      int yo = yOffset + r * stride;
      float inverse = ScalarElementwise.inverseRoot(squaresAbout(x, xo, width, 0f), width, eps);
      int i = 0;
      for (; i < bound; i += S.length()) {
        FloatVector.fromArray(S, x, xo + i).mul(inverse).mul(FloatVector.fromArray(S, gamma, i))
            .intoArray(y, yo + i);
      }
      for (; i < width; i++) {
        y[yo + i] = x[xo + i] * inverse * gamma[i];
      }
    }
  }

  /** The scalar pass's operations lane by lane, so the same bits. */
  @Override
  public void rotateHalves(float[] x, int a, int b, float[] cos, float[] sin, int at, int n) {
    int bound = S.loopBound(n);
    int i = 0;
    for (; i < bound; i += S.length()) {
      FloatVector first = FloatVector.fromArray(S, x, a + i);
      FloatVector second = FloatVector.fromArray(S, x, b + i);
      FloatVector c = FloatVector.fromArray(S, cos, at + i);
      FloatVector s = FloatVector.fromArray(S, sin, at + i);
      first.mul(c).sub(second.mul(s)).intoArray(x, a + i);
      second.mul(c).add(first.mul(s)).intoArray(x, b + i);
    }
    for (; i < n; i++) {
      float first = x[a + i];
      float second = x[b + i];
      x[a + i] = first * cos[at + i] - second * sin[at + i];
      x[b + i] = second * cos[at + i] + first * sin[at + i];
    }
  }
}
