package io.corpus.encoder.weights;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class HalfFloatsTest {
  @Test
  void everyHalfComesBackFromItsFloat() {
    for (int h = 0; h < 0x10000; h++) {
      float f = HalfFloats.halfToFloat((short) h);
      short back = HalfFloats.floatToHalf(f);
      if (Float.isNaN(f)) {
        assertTrue(Float.isNaN(HalfFloats.halfToFloat(back)), "NaN stays NaN");
      } else {
        assertEquals(h, back & 0xffff, "half 0x" + Integer.toHexString(h) + " = " + f);
      }
    }
  }

  @Test
  void floatsRoundToTheNearestHalfTiesToEven() {
    assertEquals(0x3c00, HalfFloats.floatToHalf(1f));
    assertEquals(0x3c00, HalfFloats.floatToHalf(1f + 0x1p-11f), "a tie goes to the even 1.0");
    assertEquals(0x3c02, HalfFloats.floatToHalf(1f + 3 * 0x1p-11f), "a tie goes to the even");
    assertEquals(0x3c01, HalfFloats.floatToHalf(1f + 0x1p-11f + 0x1p-20f), "above a tie");
    assertEquals(0x7c00, HalfFloats.floatToHalf(65520f), "past the largest half: infinity");
    assertEquals(0x7bff, HalfFloats.floatToHalf(65519f));
    assertEquals(0x0001, HalfFloats.floatToHalf(0x1p-24f), "the smallest subnormal");
    assertEquals(0x0000, HalfFloats.floatToHalf(0x1p-26f));
    assertEquals(0x8000, HalfFloats.floatToHalf(-0f) & 0xffff);
    Random random = new Random(3);
    for (int i = 0; i < 200_000; i++) {
      float f = (float) (random.nextGaussian() * Math.pow(2, random.nextInt(40) - 25));
      float h = HalfFloats.halfToFloat(HalfFloats.floatToHalf(f));
      short bits = HalfFloats.floatToHalf(f);
      float below = HalfFloats.halfToFloat((short) (bits - 1));
      float above = HalfFloats.halfToFloat((short) (bits + 1));
      if (Float.isFinite(below) && Float.isFinite(above) && (bits & 0x7fff) != 0) {
        assertTrue(Math.abs(f - h) <= Math.abs(f - below) && Math.abs(f - h)
            <= Math.abs(f - above), f + " -> " + h + ", not the nearest half");
      }
    }
  }
}
