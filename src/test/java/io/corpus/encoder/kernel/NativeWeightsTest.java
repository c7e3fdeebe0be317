package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The reduced-precision matrices hold their values in native memory only; serialized, as a
 * broadcast to executors serializes them, they come back with the same values (in a matrix over
 * a megabyte, so that it travels in several pieces) and multiply the same.
 */
class NativeWeightsTest {
  @SuppressWarnings("unchecked")
  private static <T> T roundTrip(T value) throws IOException, ClassNotFoundException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    }
    try (ObjectInputStream in = new ObjectInputStream(
        new ByteArrayInputStream(bytes.toByteArray()))) {
      return (T) in.readObject();
    }
  }

  @Test
  void reducedMatricesComeBackFromSerializationWithTheSameValues() throws Exception {
    Random random = new Random(5);
    int rows = 1100;
    int cols = 700;                                       // 770,000 values: 1.5 MB in bfloat16
    float[] w = new float[rows * cols];
    for (int i = 0; i < w.length; i++) {
      w[i] = (float) random.nextGaussian();
    }
    Int8Matrix int8 = Int8Matrix.quantize(w, rows, cols);
    Int8Matrix int8Back = roundTrip(int8);
    assertArrayEquals(int8.values(), int8Back.values());
    assertArrayEquals(int8.scales(), int8Back.scales());
    assertArrayEquals(int8.floats(), int8Back.floats());
    assertEquals(int8.bytes(), int8Back.bytes());
    Bfloat16Matrix bf16 = Bfloat16Matrix.round(w, rows, cols);
    Bfloat16Matrix bf16Back = roundTrip(bf16);
    assertArrayEquals(bf16.bits(), bf16Back.bits());
    assertArrayEquals(bf16.floats(), bf16Back.floats());
    float[] row = new float[cols];
    bf16Back.row(rows - 1, row, 0);
    for (int c = 0; c < cols; c++) {
      assertEquals(Bfloat16Matrix.toFloat(Bfloat16Matrix.toBfloat16(w[(rows - 1) * cols + c])),
          row[c]);
    }
    if (Precision.INT8.refusal().isEmpty()) {
      float[] x = new float[3 * cols];
      for (int i = 0; i < x.length; i++) {
        x[i] = (float) random.nextGaussian();
      }
      float[] y = new float[3 * rows];
      float[] yBack = new float[3 * rows];
      int8.multiply(3, x, 0, y, 0, false);
      int8Back.multiply(3, x, 0, yBack, 0, false);
      assertArrayEquals(y, yBack);
    }
  }
}
