package io.corpus.encoder.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/**
 * Quantized vectors against a numpy port of sentence-transformers' quantize_embeddings
 * (src/test/resources/quantize-cases, made by jobs/samples/make_quantize_cases.py): int8, uint8,
 * binary and ubinary of random unit vectors with ranges from those vectors, integer for integer,
 * vectors sitting on their dimension's minimum and maximum included; int8 and uint8 of later
 * vectors with the first ones' ranges, wherever they fall inside them.
 */
class QuantizationTest {

  @Test
  void everyValueEqualsNumpysQuantizeEmbeddings() throws Exception {
    JsonNode cases;
    try (InputStream in = getClass().getResourceAsStream("/quantize-cases/cases.json")) {
      cases = new ObjectMapper().readTree(in);
    }
    int compared = 0;
    for (JsonNode c : cases) {
      Quantization.Ranges ranges = new Quantization.Ranges(floats(c.get("ranges").get(0)),
          floats(c.get("ranges").get(1)));
      for (Quantization q : new Quantization[] {Quantization.INT8, Quantization.UINT8,
          Quantization.BINARY, Quantization.UBINARY}) {
        JsonNode want = c.get(q.configName());
        for (int r = 0; r < want.size(); r++) {
          assertArrayEquals(ints(want.get(r)), q.apply(floats(c.get("vectors").get(r)), ranges),
              q + " row " + r);
          compared++;
        }
      }
      for (Quantization q : new Quantization[] {Quantization.INT8, Quantization.UINT8}) {
        JsonNode want = c.get("later_" + q.configName());
        for (int r = 0; r < want.size(); r++) {
          int[] got = q.apply(floats(c.get("later").get(r)), ranges);
          for (int i = 0; i < got.length; i++) {
            if (c.get("later_inside").get(r).get(i).asInt() == 1) {
              assertEquals(want.get(r).get(i).asInt(), got[i], q + " later row " + r + " " + i);
            }
          }
          compared++;
        }
      }
    }
    assertEquals(16 * 4 + 16 * 2 + 12 * 4 + 12 * 2, compared);
  }

  @Test
  void valuesOutsideTheRangesAreClampedAndAConstantDimensionIsTheLowest() {
    Quantization.Ranges ranges = new Quantization.Ranges(new float[] {-1f, 0.5f},
        new float[] {1f, 0.5f});
    assertArrayEquals(new int[] {255, 0}, Quantization.UINT8.apply(new float[] {3f, 0.5f},
        ranges));
    assertArrayEquals(new int[] {-128, -128}, Quantization.INT8.apply(new float[] {-3f, 0.7f},
        ranges));
    assertArrayEquals(new int[] {0b1010_0000 - 128, 0b1000_0000 - 128},
        Quantization.BINARY.apply(new float[] {1, 0, 2, -1, 0, 0, 0, 0, 5}, null));
    assertEquals(2, Quantization.UBINARY.width(9));
  }

  private static float[] floats(JsonNode values) {
    float[] out = new float[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = (float) values.get(i).asDouble();
    }
    return out;
  }

  private static int[] ints(JsonNode values) {
    int[] out = new int[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values.get(i).asInt();
    }
    return out;
  }
}
