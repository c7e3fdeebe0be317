package io.corpus.encoder.kernel;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link Int8Passes} on the Vector API, lane for lane the arithmetic of
 * {@link ScalarInt8Passes}; loaded by name only where the JVM has {@code jdk.incubator.vector}.
 * {@link ReducedProducts} keeps one per thread. Native memory (oneDNN's buffers) is read and
 * written a row at a time through heap arrays: the Vector API's ByteBuffer loads and stores
 * of Java 17 to 19 are gone from Java 20 on, whose MemorySegment ones Java 17 lacks
 * ({@link NativeRows}).
 */
final class VectorInt8Passes implements Int8Passes {
  private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
  private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
  private static final int ROUNDER_BITS = Float.floatToRawIntBits(ROUNDER);
  // As many byte lanes as F has float lanes: one vector's quantized values.
  private static final VectorSpecies<Byte> B = VectorSpecies.of(byte.class,
      VectorShape.forBitSize(F.length() * Byte.SIZE));
  private static final VectorShuffle<Float>[] HALVES = halves();
  private final ScalarInt8Passes tails = new ScalarInt8Passes();
  private final NativeRows rows = new NativeRows();
  private float[] zeros = new float[0];

  @Override
  public void quantize(int n, int k, float[] x, int xOffset, int qmax, ByteBuffer out,
      int stride, float[] scales, int[] zeroPoints) {
    if (I.length() != F.length()) {
      tails.quantize(n, k, x, xOffset, qmax, out, stride, scales, zeroPoints);
      return;
    }
    for (int t = 0; t < n; t++) {
      quantizeRowInItsRange(t, k, x, xOffset + t * k, qmax, out, stride, scales, zeroPoints);
    }
  }

  @Override
  public void quantizeNative(int n, int k, ByteBuffer x, int qmax, ByteBuffer out, int stride,
      float[] scales, int[] zeroPoints) {
    if (I.length() != F.length()) {
      tails.quantizeNative(n, k, x, qmax, out, stride, scales, zeroPoints);
      return;
    }
    FloatBuffer floats = NativeRows.floats(x);
    float[] row = rows.floats(k);
    for (int t = 0; t < n; t++) {
      floats.get(t * k, row, 0, k);
      quantizeRowInItsRange(t, k, row, 0, qmax, out, stride, scales, zeroPoints);
    }
  }

  /** Row t of {@link #quantize}: its range found, then {@link #quantizeRow} in it. */
  private void quantizeRowInItsRange(int t, int k, float[] x, int from, int qmax,
      ByteBuffer out, int stride, float[] scales, int[] zeroPoints) {
    int bound = F.loopBound(k);
    int pairs = bound / (2 * F.length()) * (2 * F.length());
    // two pairs of accumulators: each compare waits for the blend before it
    FloatVector lows = FloatVector.zero(F);
    FloatVector highs = lows;
    FloatVector lows2 = lows;
    FloatVector highs2 = lows;
    int i = 0;
    for (; i < pairs; i += 2 * F.length()) {
      FloatVector a = FloatVector.fromArray(F, x, from + i);
      FloatVector b = FloatVector.fromArray(F, x, from + i + F.length());
      lows = lower(lows, a);
      highs = higher(highs, a);
      lows2 = lower(lows2, b);
      highs2 = higher(highs2, b);
    }
    for (; i < bound; i += F.length()) {
      FloatVector v = FloatVector.fromArray(F, x, from + i);
      lows = lower(lows, v);
      highs = higher(highs, v);
    }
    float min = lowest(lower(lows, lows2));
    float max = highest(higher(highs, highs2));
    for (; i < k; i++) {
      min = Int8Passes.lower(min, x[from + i]);
      max = Int8Passes.higher(max, x[from + i]);
    }
    quantizeRow(t, k, x, from, min, max, qmax, out, stride, scales, zeroPoints);
  }

  @Override
  public void quantizeInRange(int n, int k, float[] x, int xOffset, float[] lows,
      float[] highs, int qmax, ByteBuffer out, int stride, float[] scales, int[] zeroPoints) {
    if (I.length() != F.length()) {
      tails.quantizeInRange(n, k, x, xOffset, lows, highs, qmax, out, stride, scales,
          zeroPoints);
      return;
    }
    for (int t = 0; t < n; t++) {
      quantizeRow(t, k, x, xOffset + t * k, lows[t], highs[t], qmax, out, stride, scales,
          zeroPoints);
    }
  }

  /**
   * Row t (k values of x from {@code from}) in the range [min, max], from byte t·stride of out,
   * its zero point in the stride − k bytes after it.
   */
  private void quantizeRow(int t, int k, float[] x, int from, float min, float max,
      int qmax, ByteBuffer out, int stride, float[] scales, int[] zeroPoints) {
    int bound = F.loopBound(k);
    int zero = Int8Passes.recorded(t, min, max, qmax, scales, zeroPoints);
    float scale = scales[t];
    int to = t * stride;
    // round(x / scale) in the low bits of (x / scale + 1.5·2²³): read as an int, the float
    // trick gives the integer without a float-to-int conversion, which JDK 17 does not compile
    // to vector instructions (8 ns a value); int-to-byte it does (0.45 ns a value in all)
    IntVector offset = IntVector.broadcast(I, zero - ROUNDER_BITS);
    byte[] quantized = rows.bytes(bound);
    for (int i = 0; i < bound; i += F.length()) {
      store(FloatVector.fromArray(F, x, from + i), scale, offset, qmax, quantized, i);
    }
    out.put(to, quantized, 0, bound);
    for (int i = bound; i < k; i++) {
      out.put(to + i, Int8Passes.quantized(x[from + i], scale, zero, qmax));
    }
    Int8Passes.zeroPointColumns(out, to, k, stride, zero);
  }

  // A row's range by compare and blend, lane by lane as Int8Passes.lower and higher: NaN passed
  // over. FloatVector.min and max keep Java's rules for NaN and -0.0, which C2 compiles to a
  // sequence of blends per vector, and reduceLanes to one of those per step: 0.23 ns a value
  // for the range of MiniLM's rows of 384 against 0.11 here (speed log).

  private static FloatVector lower(FloatVector a, FloatVector b) {
    return a.blend(b, b.lt(a));
  }

  private static FloatVector higher(FloatVector a, FloatVector b) {
    return a.blend(b, b.compare(VectorOperators.GT, a));
  }

  private static float lowest(FloatVector v) {
    for (VectorShuffle<Float> half : HALVES) {
      v = lower(v, v.rearrange(half));
    }
    return v.lane(0);
  }

  private static float highest(FloatVector v) {
    for (VectorShuffle<Float> half : HALVES) {
      v = higher(v, v.rearrange(half));
    }
    return v.lane(0);
  }

  /** Shuffles that bring each lane of the upper half, quarter, ... to lane 0's side. */
  @SuppressWarnings("unchecked")
  private static VectorShuffle<Float>[] halves() {
    VectorShuffle<Float>[] halves = new VectorShuffle[Integer.numberOfTrailingZeros(F.length())];
    for (int i = 0, step = F.length() / 2; step > 0; step /= 2, i++) {
      halves[i] = VectorShuffle.iota(F, step, 1, true);
    }
    return halves;
  }

  /** One vector of values quantized (the zero point in offset) into out from {@code to}. */
  private static void store(FloatVector v, float scale, IntVector offset, int qmax,
      byte[] out, int to) {
    IntVector q = v.div(scale).add(ROUNDER).reinterpretAsInts().add(offset).max(0).min(qmax);
    ((ByteVector) q.convertShape(VectorOperators.I2B, B, 0)).intoArray(out, to);
  }

  @Override
  public void rescale(int n, int outs, ByteBuffer sums, float[] scales, int[] zeroPoints,
      float[] wScales, int[] rowSums, float[] bias, float[] addend, int addendOffset,
      float[] y, int yOffset) {
    if (I.length() != F.length()) {
      tails.rescale(n, outs, sums, scales, zeroPoints, wScales, rowSums, bias, addend,
          addendOffset, y, yOffset);
      return;
    }
    // One loop per case: loop-invariant tests inside the vector loop cost the JIT its inlining.
    if (addend == null) {
      rescaleBiased(n, outs, sums, scales, zeroPoints, wScales, rowSums,
          bias == null ? zeros(outs) : bias, y, yOffset);
    } else {
      rescaleAdded(n, outs, sums, scales, zeroPoints, wScales, rowSums,
          bias == null ? zeros(outs) : bias, addend, addendOffset, y, yOffset);
    }
  }

  private void rescaleBiased(int n, int outs, ByteBuffer sums, float[] scales,
      int[] zeroPoints, float[] wScales, int[] rowSums, float[] bias, float[] y, int yOffset) {
    IntBuffer sumRows = NativeRows.ints(sums);
    int[] row = rows.ints(outs);
    int bound = F.loopBound(outs);
    for (int t = 0; t < n; t++) {
      float tokenScale = scales[t];
      int zero = zeroPoints[t];
      int at = yOffset + t * outs;
      sumRows.get(t * outs, row, 0, outs);
      for (int o = 0; o < bound; o += F.length()) {
        product(row, o, zero, tokenScale, wScales, rowSums)
            .add(FloatVector.fromArray(F, bias, o)).intoArray(y, at + o);
      }
      for (int o = bound; o < outs; o++) {
        y[at + o] = product(row[o], zero, tokenScale, wScales[o], rowSums[o]) + bias[o];
      }
    }
  }

  private void rescaleAdded(int n, int outs, ByteBuffer sums, float[] scales,
      int[] zeroPoints, float[] wScales, int[] rowSums, float[] bias, float[] addend,
      int addendOffset, float[] y, int yOffset) {
    IntBuffer sumRows = NativeRows.ints(sums);
    int[] row = rows.ints(outs);
    int bound = F.loopBound(outs);
    for (int t = 0; t < n; t++) {
      float tokenScale = scales[t];
      int zero = zeroPoints[t];
      int at = yOffset + t * outs;
      int from = addendOffset + t * outs;
      sumRows.get(t * outs, row, 0, outs);
      for (int o = 0; o < bound; o += F.length()) {
        FloatVector added = FloatVector.fromArray(F, addend, from + o)
            .add(FloatVector.fromArray(F, bias, o));
        product(row, o, zero, tokenScale, wScales, rowSums).add(added)
            .intoArray(y, at + o);
      }
      for (int o = bound; o < outs; o++) {
        y[at + o] = product(row[o], zero, tokenScale, wScales[o], rowSums[o])
            + (addend[from + o] + bias[o]);
      }
    }
  }

  @Override
  public void rescaleGelu(int n, int outs, ByteBuffer sums, float[] scales, int[] zeroPoints,
      float[] wScales, int[] rowSums, float[] bias, float[] y, int yOffset, float[] lows,
      float[] highs) {
    if (I.length() != F.length()) {
      tails.rescaleGelu(n, outs, sums, scales, zeroPoints, wScales, rowSums, bias, y, yOffset,
          lows, highs);
      return;
    }
    IntBuffer sumRows = NativeRows.ints(sums);
    int[] row = rows.ints(outs);
    int bound = F.loopBound(outs);
    for (int t = 0; t < n; t++) {
      float tokenScale = scales[t];
      int zero = zeroPoints[t];
      int at = yOffset + t * outs;
      sumRows.get(t * outs, row, 0, outs);
      FloatVector mins = FloatVector.zero(F);
      FloatVector maxes = FloatVector.zero(F);
      for (int o = 0; o < bound; o += F.length()) {
        FloatVector g = VectorRationalErf.gelu(
            product(row, o, zero, tokenScale, wScales, rowSums)
                .add(FloatVector.fromArray(F, bias, o)));
        g.intoArray(y, at + o);
        mins = lower(mins, g);
        maxes = higher(maxes, g);
      }
      float min = lowest(mins);
      float max = highest(maxes);
      for (int o = bound; o < outs; o++) {
        y[at + o] = RationalErf.gelu(
            product(row[o], zero, tokenScale, wScales[o], rowSums[o]) + bias[o]);
        min = Int8Passes.lower(min, y[at + o]);
        max = Int8Passes.higher(max, y[at + o]);
      }
      if (lows != null) {
        lows[t] = min;
        highs[t] = max;
      }
    }
  }

  /** scale · wScale · (sum − zero · rowSum) for one output: a tail no whole vector covers. */
  private static float product(int sum, int zero, float tokenScale, float wScale,
      int rowSum) {
    return wScale * tokenScale * (sum - zero * rowSum);
  }

  /** scale · wScales[o..] · (sums[o..] − zero · rowSums[o..]), one vector of outputs. */
  private static FloatVector product(int[] sums, int o, int zero, float tokenScale,
      float[] wScales, int[] rowSums) {
    IntVector corrected = IntVector.fromArray(I, sums, o)
        .sub(IntVector.fromArray(I, rowSums, o).mul(zero));
    return FloatVector.fromArray(F, wScales, o).mul(tokenScale)
        .mul((FloatVector) corrected.convert(VectorOperators.I2F, 0));
  }

  private float[] zeros(int width) {
    if (zeros.length < width) {
      zeros = new float[width];
    }
    return zeros;
  }
}
