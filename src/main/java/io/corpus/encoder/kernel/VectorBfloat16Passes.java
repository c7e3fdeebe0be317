package io.corpus.encoder.kernel;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link Bfloat16Passes} on the Vector API, lane for lane the arithmetic of
 * {@link ScalarBfloat16Passes}; loaded by name only where the JVM has {@code
 * jdk.incubator.vector}. {@link ReducedProducts} keeps one per thread.
 */
final class VectorBfloat16Passes implements Bfloat16Passes {
  private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
  private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
  // As many short lanes as F has float lanes: one vector's bfloat16 values.
  private static final VectorSpecies<Short> S = VectorSpecies.of(short.class,
      VectorShape.forBitSize(F.length() * Short.SIZE));
  private static final ByteOrder ORDER = ByteOrder.nativeOrder();
  private final ScalarBfloat16Passes tails = new ScalarBfloat16Passes();
  private float[] zeros = new float[0];

  @Override
  public void round(int count, float[] x, int xOffset, ByteBuffer out) {
    if (I.length() != F.length()) {
      tails.round(count, x, xOffset, out);
      return;
    }
    int bound = F.loopBound(count);
    for (int i = 0; i < bound; i += F.length()) {
      IntVector bits = FloatVector.fromArray(F, x, xOffset + i).reinterpretAsInts();
      // + 0x7FFF + the lowest kept bit, then the high half: round to nearest, ties to even;
      // a NaN (exponent all ones, a mantissa bit set) becomes 0xFFFF, as PyTorch writes it
      IntVector rounded = bits.add(bits.lanewise(VectorOperators.LSHR, 16).and(1).add(0x7FFF))
          .lanewise(VectorOperators.LSHR, 16)
          .blend(0xFFFF, bits.and(0x7FFFFFFF).compare(VectorOperators.GT, 0x7F800000));
      ((ShortVector) rounded.convertShape(VectorOperators.I2S, S, 0))
          .intoByteBuffer(out, 2 * i, ORDER);
    }
    for (int i = bound; i < count; i++) {
      out.putShort(2 * i, Bfloat16Matrix.toBfloat16(x[xOffset + i]));
    }
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

  private static void addBias(int n, int outs, ByteBuffer products, float[] bias, float[] y,
      int yOffset) {
    int bound = F.loopBound(outs);
    for (int t = 0; t < n; t++) {
      int at = yOffset + t * outs;
      int row = 4 * t * outs;
      for (int o = 0; o < bound; o += F.length()) {
        FloatVector.fromByteBuffer(F, products, row + 4 * o, ORDER)
            .add(FloatVector.fromArray(F, bias, o)).intoArray(y, at + o);
      }
      for (int o = bound; o < outs; o++) {
        y[at + o] = products.getFloat(row + 4 * o) + bias[o];
      }
    }
  }

  private static void addBoth(int n, int outs, ByteBuffer products, float[] bias,
      float[] addend, int addendOffset, float[] y, int yOffset) {
    int bound = F.loopBound(outs);
    for (int t = 0; t < n; t++) {
      int at = yOffset + t * outs;
      int from = addendOffset + t * outs;
      int row = 4 * t * outs;
      for (int o = 0; o < bound; o += F.length()) {
        FloatVector added = FloatVector.fromArray(F, addend, from + o)
            .add(FloatVector.fromArray(F, bias, o));
        FloatVector.fromByteBuffer(F, products, row + 4 * o, ORDER).add(added)
            .intoArray(y, at + o);
      }
      for (int o = bound; o < outs; o++) {
        y[at + o] = products.getFloat(row + 4 * o) + (addend[from + o] + bias[o]);
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
    int bound = F.loopBound(outs);
    for (int t = 0; t < n; t++) {
      int at = yOffset + t * outs;
      int row = 4 * t * outs;
      for (int o = 0; o < bound; o += F.length()) {
        VectorRationalErf.gelu(FloatVector.fromByteBuffer(F, products, row + 4 * o, ORDER)
                .add(FloatVector.fromArray(F, bias, o)))
            .intoArray(y, at + o);
      }
      for (int o = bound; o < outs; o++) {
        y[at + o] = RationalErf.gelu(products.getFloat(row + 4 * o) + bias[o]);
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
