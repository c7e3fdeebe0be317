package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * float32 weights on oneDNN's matmul give the BLAS's products up to the order of the float32
 * sums: every entry of {@link Matrix} (a product, accumulated; a linear layer's bias and
 * residual, the residual y itself; GELU and SiLU after the bias; a feed-forward), over more rows
 * than one block ({@link ReducedProducts#FLOAT32_BLOCK}) and from offsets; its values and a
 * serialized copy (a broadcast's) are the float32 ones it was made from.
 */
class OneDnnFloat32MatrixTest {
  private static final Random RANDOM = new Random(5);

  @BeforeAll
  static void needsOneDnn() {
    assumeTrue(OneDnn.available(), "oneDNN did not load: " + OneDnn.failure());
    System.out.println("oneDNN: " + OneDnn.describe());
  }

  private static float[] random(int n) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) RANDOM.nextGaussian();
    }
    return a;
  }

  /** Each value within 1e-5 of the largest magnitude: float32 sums in another order. */
  private static void assertClose(float[] want, float[] got, String what) {
    double scale = 0;
    for (float v : want) {
      scale = Math.max(scale, Math.abs(v));
    }
    for (int i = 0; i < want.length; i++) {
      assertEquals(want[i], got[i], 1e-5 * scale, what + " at " + i);
    }
  }

  @Test
  void productsEqualTheBlasOnes() {
    int k = 96;
    int outs = 40;
    int n = ReducedProducts.FLOAT32_BLOCK + 45;
    Float32Matrix blas = new Float32Matrix(random(outs * k), outs, k);
    Matrix oneDnn = OneDnnFloat32Matrix.of(blas);
    float[] x = random(3 + n * k);
    float[] bias = random(outs);
    float[] start = random(5 + n * outs);
    for (boolean accumulate : new boolean[] {false, true}) {
      float[] want = start.clone();
      float[] got = start.clone();
      blas.multiply(n, x, 3, want, 5, accumulate);
      oneDnn.multiply(n, x, 3, got, 5, accumulate);
      assertClose(want, got, "multiply, accumulate " + accumulate);
    }
    float[] residual = random(2 + n * outs);
    for (int form = 0; form < 4; form++) {   // bias, residual, both, the residual y itself
      float[] b = form == 1 ? null : bias;
      float[] want = start.clone();
      float[] got = start.clone();
      float[] addendWant = form == 0 ? null : form == 3 ? want : residual;
      float[] addendGot = form == 0 ? null : form == 3 ? got : residual;
      int at = form == 3 ? 5 : 2;
      blas.linear(n, x, 3, b, addendWant, at, want, 5);
      oneDnn.linear(n, x, 3, b, addendGot, at, got, 5);
      assertClose(want, got, "linear, form " + form);
    }
    for (Activation activation : new Activation[] {Activation.GELU, Activation.SILU}) {
      float[] want = new float[n * outs];
      float[] got = new float[n * outs];
      blas.activatedLinear(n, x, 3, bias, activation, want);
      oneDnn.activatedLinear(n, x, 3, bias, activation, got);
      assertClose(want, got, activation.toString());
    }
  }

  @Test
  void aFeedForwardEqualsTheBlasOne() {
    int k = 64;
    int hiddenWidth = 160;
    int n = 300;
    Float32Matrix in = new Float32Matrix(random(hiddenWidth * k), hiddenWidth, k);
    Float32Matrix out = new Float32Matrix(random(k * hiddenWidth), k, hiddenWidth);
    float[] x = random(n * k);
    float[] inBias = random(hiddenWidth);
    float[] outBias = random(k);
    float[] residual = random(n * k);
    float[] want = new float[n * k];
    float[] got = new float[n * k];
    in.feedForward(n, x, 0, inBias, Activation.GELU, out, outBias, residual, 0, want, 0,
        new float[n * hiddenWidth]);
    OneDnnFloat32Matrix.of(in).feedForward(n, x, 0, inBias, Activation.GELU,
        OneDnnFloat32Matrix.of(out), outBias, residual, 0, got, 0,
        new float[n * hiddenWidth]);
    assertClose(want, got, "feed-forward");
  }

  @Test
  void itsValuesAndASerializedCopyAreTheOnesItWasMadeFrom() throws Exception {
    float[] values = random(7 * 5);
    OneDnnFloat32Matrix m = OneDnnFloat32Matrix.of(new Float32Matrix(values, 7, 5));
    assertArrayEquals(values, m.floats());
    assertEquals(Precision.FLOAT32, m.precision());
    assertEquals(4L * values.length, m.bytes());
    float[] row = new float[6];
    m.row(3, row, 1);
    for (int c = 0; c < 5; c++) {
      assertEquals(values[3 * 5 + c], row[1 + c]);
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(m);
    }
    Matrix copy;
    try (ObjectInputStream in = new ObjectInputStream(
        new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (Matrix) in.readObject();
    }
    assertArrayEquals(values, copy.floats());
    assertEquals(7, copy.rows());
    assertEquals(5, copy.cols());
  }
}
