package io.corpus.encoder.kernel;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.nio.ShortBuffer;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link Bfloat16Passes} on the Vector API, lane for lane the arithmetic of
 * {@link ScalarBfloat16Passes}; loaded by name only where the JVM has {@code
 * jdk.incubator.vector}. {@link ReducedProducts} keeps one per thread. Native memory is read and
 * written through heap rows ({@link NativeRows}: Java 20 took the Vector API's ByteBuffer
 * loads and stores away).
 */
final class VectorBfloat16Passes implements Bfloat16Passes {
  private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
  private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
  // As many short lanes as F has float lanes: one vector's bfloat16 values.
  private static final VectorSpecies<Short> S = VectorSpecies.of(short.class,
      VectorShape.forBitSize(F.length() * Short.SIZE));
  // Values rounded into a heap row at a time before they are copied out.
  private static final int ROUND_ROW = 4096;
  private final ScalarBfloat16Passes tails = new ScalarBfloat16Passes();
  private final NativeRows rows = new NativeRows();
  private float[] zeros = new float[0];

  @Override
  public void round(int count, float[] x, int xOffset, ByteBuffer out) {
    if (I.length() != F.length()) {
      tails.round(count, x, xOffset, out);
      return;
    }
    int bound = F.loopBound(count);
    ShortBuffer bits = NativeRows.shorts(out);
    short[] row = rows.shorts(Math.min(bound, ROUND_ROW));
    for (int start = 0; start < bound; start += ROUND_ROW) {
      int width = Math.min(ROUND_ROW, bound - start);
      for (int i = 0; i < width; i += F.length()) {
        round(FloatVector.fromArray(F, x, xOffset + start + i), row, i);
      }
      bits.put(start, row, 0, width);
    }
    for (int i = bound; i < count; i++) {
      bits.put(i, Bfloat16Matrix.toBfloat16(x[xOffset + i]));
    }
  }

  /** One vector of floats rounded to bfloat16 bits, into {@code out} from {@code to}. */
  private static void round(FloatVector v, short[] out, int to) {
    IntVector bits = v.reinterpretAsInts();
    // + 0x7FFF + the lowest kept bit, then the high half: round to nearest, ties to even;
    // a NaN (exponent all ones, a mantissa bit set) becomes 0xFFFF, as PyTorch writes it
    IntVector rounded = bits.add(bits.lanewise(VectorOperators.LSHR, 16).and(1).add(0x7FFF))
        .lanewise(VectorOperators.LSHR, 16)
        .blend(0xFFFF, bits.and(0x7FFFFFFF).compare(VectorOperators.GT, 0x7F800000));
    ((ShortVector) rounded.convertShape(VectorOperators.I2S, S, 0)).intoArray(out, to);
  }

  @Override
  public void add(int n, int outs, ByteBuffer products, float[] bias, float[] addend,
      int addendOffset, float[] y, int yOffset) {
    // One loop per case: loop-invariant tests inside the vector loop cost the JIT its inlining.
    if (addend == null) {
      addBias(n, outs, products, bias == null ? zeros(outs) : bias, y, yOffset);
    } else {
      addBoth(n, outs, products, bias == null ? zeros(outs) : bias, addend, addendOffset, y,
          yOffset);
    }
  }

  private void addBias(int n, int outs, ByteBuffer products, float[] bias, float[] y,
      int yOffset) {
    FloatBuffer rowsOfProducts = NativeRows.floats(products);
    float[] row = rows.floats(outs);
    int bound = F.loopBound(outs);
    for (int t = 0; t < n; t++) {
      int at = yOffset + t * outs;
      rowsOfProducts.get(t * outs, row, 0, outs);
      for (int o = 0; o < bound; o += F.length()) {
        FloatVector.fromArray(F, row, o)
            .add(FloatVector.fromArray(F, bias, o)).intoArray(y, at + o);
      }
      for (int o = bound; o < outs; o++) {
        y[at + o] = row[o] + bias[o];
      }
    }
  }

  private void addBoth(int n, int outs, ByteBuffer products, float[] bias,
      float[] addend, int addendOffset, float[] y, int yOffset) {
    FloatBuffer rowsOfProducts = NativeRows.floats(products);
    float[] row = rows.floats(outs);
    int bound = F.loopBound(outs);
    for (int t = 0; t < n; t++) {
      int at = yOffset + t * outs;
      int from = addendOffset + t * outs;
      rowsOfProducts.get(t * outs, row, 0, outs);
      for (int o = 0; o < bound; o += F.length()) {
        FloatVector added = FloatVector.fromArray(F, addend, from + o)
            .add(FloatVector.fromArray(F, bias, o));
        FloatVector.fromArray(F, row, o).add(added)
            .intoArray(y, at + o);
      }
      for (int o = bound; o < outs; o++) {
        y[at + o] = row[o] + (addend[from + o] + bias[o]);
      }
    }
  }

  @Override
  public void addGelu(int n, int outs, ByteBuffer products, float[] bias, float[] y,
      int yOffset) {
    if (I.length() != F.length()) {
      tails.addGelu(n, outs, products, bias, y, yOffset);
      return;
    }
    FloatBuffer rowsOfProducts = NativeRows.floats(products);
    float[] row = rows.floats(outs);
    int bound = F.loopBound(outs);
    for (int t = 0; t < n; t++) {
      int at = yOffset + t * outs;
      rowsOfProducts.get(t * outs, row, 0, outs);
      for (int o = 0; o < bound; o += F.length()) {
        VectorRationalErf.gelu(FloatVector.fromArray(F, row, o)
                .add(FloatVector.fromArray(F, bias, o)))
            .intoArray(y, at + o);
      }
      for (int o = bound; o < outs; o++) {
        y[at + o] = RationalErf.gelu(row[o] + bias[o]);
      }
    }
  }

  private float[] zeros(int width) {
    if (zeros.length < width) {
      zeros = new float[width];
    }
    return zeros;
  }
}
