package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.commons.math3.special.Erf;
import org.junit.jupiter.api.Test;

class ElementwiseTest {
  @Test
  void erfIsAccurateToFloatPrecision() {
    for (double x = -6; x <= 6; x += 0.001) {
      assertEquals(Erf.erf(x), ScalarElementwise.erf(x), 2e-7, "erf(" + x + ")");
    }
  }

  @Test
  void vectorImplementationIsInUseAndMatchesTheScalarOne() {
    assertEquals("VectorElementwise", Elementwise.INSTANCE.getClass().getSimpleName(),
        "the test JVM runs with --add-modules jdk.incubator.vector");
    Elementwise scalar = new ScalarElementwise();
    java.util.Random random = new java.util.Random(5);
    for (int length : new int[] {1, 3, 15, 16, 17, 64, 129}) {
      float[] x = new float[length + 2];
      for (int i = 0; i < x.length; i++) {
        x[i] = (float) (random.nextGaussian() * 4);
      }
      x[1] = -20f;
      x[x.length - 2] = 9f;
      for (String op : new String[] {"softmax", "gelu", "geluTanh"}) {
        float[] a = x.clone();
        float[] b = x.clone();
        switch (op) {
          case "softmax" -> {
            a[1 + length / 2] = Float.NEGATIVE_INFINITY;
            b[1 + length / 2] = Float.NEGATIVE_INFINITY;
            Elementwise.INSTANCE.softmax(a, 1, length);
            scalar.softmax(b, 1, length);
          }
          case "gelu" -> {
            Elementwise.INSTANCE.gelu(a, 1, length);
            scalar.gelu(b, 1, length);
          }
          default -> {
            Elementwise.INSTANCE.geluTanh(a, 1, length);
            scalar.geluTanh(b, 1, length);
          }
        }
        assertEquals(x[0], a[0], 0, op + " leaves what is before the range");
        assertEquals(x[length + 1], a[length + 1], 0, op + " leaves what is after the range");
        for (int i = 1; i <= length; i++) {
          assertEquals(b[i], a[i], 1e-6 * Math.max(1, Math.abs(b[i])), op + " length " + length
              + " at " + i);
        }
      }
    }
  }

  @Test
  void activationsMatchTheirDefinitions() {
    float[] x = {-3f, -0.5f, 0f, 0.7f, 4f};
    float[] relu = x.clone();
    Activation.RELU.applyInPlace(relu, 0, relu.length);
    float[] gelu = x.clone();
    Activation.GELU.applyInPlace(gelu, 0, gelu.length);
    float[] tanh = x.clone();
    Activation.GELU_TANH.applyInPlace(tanh, 0, tanh.length);
    for (int i = 0; i < x.length; i++) {
      double v = x[i];
      assertEquals(Math.max(0, v), relu[i], 0);
      assertEquals(0.5 * v * (1 + Erf.erf(v / Math.sqrt(2))), gelu[i], 1e-6);
      assertEquals(0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v * v * v))),
          tanh[i], 1e-6);
    }
  }

  @Test
  void unknownActivationListsTheAllowedNames() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Activation.fromConfigName("swish"));
    assertEquals("Unknown activation 'swish', expected one of relu, gelu, gelu-tanh",
        e.getMessage());
  }

  @Test
  void softmaxIsStableAndMasked() {
    float[] x = {1000f, 1001f, Float.NEGATIVE_INFINITY, 999f};
    Softmax.inPlace(x, 0, 4);
    double z = Math.exp(-1) + 1 + Math.exp(-2);
    assertEquals(Math.exp(-1) / z, x[0], 1e-6);
    assertEquals(1 / z, x[1], 1e-6);
    assertEquals(0f, x[2]);
    assertEquals(Math.exp(-2) / z, x[3], 1e-6);
  }

  @Test
  void softmaxOfAFullyMaskedRowIsZeroNotNaN() {
    float[] x = {7f, Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY, 7f};
    Softmax.inPlace(x, 1, 2);
    assertEquals(7f, x[0]);
    assertEquals(0f, x[1]);
    assertEquals(0f, x[2]);
    assertEquals(7f, x[3]);
  }

  @Test
  void layerNormUsesBiasedVarianceAndEpsInsideTheRoot() {
    float[] x = {1f, 2f, 3f, 6f};
    float[] gamma = {1f, 2f, 1f, 1f};
    float[] beta = {0f, 0f, 1f, 0f};
    float[] y = new float[4];
    LayerNorm.apply(x, 0, y, 0, 1, gamma, beta, 0.5f);
    double mean = 3;
    double var = (4 + 1 + 0 + 9) / 4.0;
    double inv = 1 / Math.sqrt(var + 0.5);
    assertEquals((1 - mean) * inv, y[0], 1e-6);
    assertEquals((2 - mean) * inv * 2, y[1], 1e-6);
    assertEquals(1, y[2], 1e-6);
    assertEquals((6 - mean) * inv, y[3], 1e-6);
  }
}
