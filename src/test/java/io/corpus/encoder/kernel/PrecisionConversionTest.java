package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/**
 * The conversions {@code model.precision} makes, against golden cases from PyTorch and a numpy port
 * of ONNX Runtime's quantization ({@code jobs/samples/make_precision_cases.py}): bfloat16 bits
 * equal {@code .to(torch.bfloat16)}'s, int8 weights and scales equal {@code quantize_dynamic}'s
 * per-channel symmetric ones, and each token's uint8 values, scale and zero point equal
 * DynamicQuantizeLinear's, value for value.
 */
class PrecisionConversionTest {
  private static final JsonNode CASES = read();

  private static JsonNode read() {
    try (InputStream in = PrecisionConversionTest.class.getResourceAsStream(
        "/precision/conversions.json")) {
      return new ObjectMapper().readTree(in);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static float[] floats(JsonNode bits) {
    float[] f = new float[bits.size()];
    for (int i = 0; i < f.length; i++) {
      f[i] = Float.intBitsToFloat(bits.get(i).asInt());
    }
    return f;
  }

  @Test
  void bfloat16BitsEqualPyTorchs() {
    JsonNode c = CASES.get("bfloat16");
    float[] values = floats(c.get("floats"));
    for (int i = 0; i < values.length; i++) {
      int expected = c.get("bits").get(i).asInt();
      int actual = Bfloat16Matrix.toBfloat16(values[i]) & 0xFFFF;
      assertEquals(expected, actual, "bfloat16 of " + values[i] + " (float bits "
          + Integer.toHexString(Float.floatToRawIntBits(values[i])) + ")");
    }
    assertEquals(c.get("nan_bits").asInt(), Bfloat16Matrix.toBfloat16(Float.NaN) & 0xFFFF);
    Bfloat16Matrix m = Bfloat16Matrix.round(values, 1, values.length);
    for (int i = 0; i < values.length; i++) {
      assertEquals(c.get("bits").get(i).asInt(), m.bits()[i] & 0xFFFF);
    }
  }

  @Test
  void int8WeightsEqualOnnxRuntimesPerChannelQuantization() {
    JsonNode c = CASES.get("int8_weights");
    int rows = c.get("rows").asInt();
    int cols = c.get("cols").asInt();
    Int8Matrix m = Int8Matrix.quantize(floats(c.get("floats")), rows, cols);
    float[] scales = floats(c.get("scales"));
    byte[] values = m.values();
    float[] quantizedScales = m.scales();
    for (int r = 0; r < rows; r++) {
      assertEquals(scales[r], quantizedScales[r], "scale of row " + r);
      for (int k = 0; k < cols; k++) {
        assertEquals(c.get("values").get(r * cols + k).asInt(), values[r * cols + k],
            "int8 value (" + r + ", " + k + ")");
      }
    }
  }

  @Test
  void activationsEqualDynamicQuantizeLinearPerToken() {
    JsonNode c = CASES.get("uint8_activations");
    int rows = c.get("rows").asInt();
    int cols = c.get("cols").asInt();
    float[] x = floats(c.get("floats"));
    for (int qmax : new int[] {255, 127}) {
      JsonNode expected = c.get("by_qmax").get(String.valueOf(qmax));
      byte[] q = new byte[rows * cols];
      float[] scales = new float[rows];
      int[] zeros = new int[rows];
      ReducedProducts.quantizeRows(rows, cols, x, 0, qmax, q, scales, zeros);
      float[] expectedScales = floats(expected.get("scales"));
      for (int t = 0; t < rows; t++) {
        String row = "qmax " + qmax + ", token " + t;
        assertEquals(expectedScales[t], scales[t], row + ": scale");
        assertEquals(expected.get("zero_points").get(t).asInt(), zeros[t], row + ": zero point");
        for (int k = 0; k < cols; k++) {
          assertEquals(expected.get("values").get(t * cols + k).asInt(), q[t * cols + k] & 0xFF,
              row + ", value " + k);
        }
      }
    }
  }
}
