package io.corpus.encoder.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** sentence-transformers' Normalize step. */
class PoolingNormalizeTest {
  @Test
  void scalesToUnitLength() {
    float[] v = {3f, -4f, 0f};
    Pooling.normalize(v);
    assertArrayEquals(new float[] {0.6f, -0.8f, 0f}, v, 1e-7f);
  }

  @Test
  void zeroVectorStaysZero() {
    float[] v = new float[4];
    Pooling.normalize(v);
    assertArrayEquals(new float[4], v);
  }

  @Test
  void tinyValuesDoNotUnderflow() {
    float[] v = {1e-30f, 1e-30f};
    Pooling.normalize(v);
    assertEquals(Math.sqrt(0.5), v[0], 1e-6);
  }
}
