package io.corpus.encoder.kernel;

import java.util.Arrays;
import java.util.Random;

/**
 * A fingerprint of the vector element-wise passes' exact output bits on fixed inputs. Run as a
 * program under {@code -Xint} it shows what the interpreter computes; in the test JVM, after
 * warm-up, what the JIT's compiled code computes. The two must be equal.
 */
public final class ElementwiseFingerprint {
  private ElementwiseFingerprint() {}

  public static void main(String[] args) {
    System.out.println(Elementwise.INSTANCE.describe() + ": " + compute());
  }

  static int compute() {
    Elementwise e = Elementwise.INSTANCE;
    Random random = new Random(11);
    int width = 67;
    int rows = 3;
    float[] x = new float[rows * width];
    float[] bias = new float[width];
    float[] gamma = new float[width];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) (random.nextGaussian() * 5);
    }
    for (int i = 0; i < width; i++) {
      bias[i] = (float) random.nextGaussian();
      gamma[i] = 1 + (float) random.nextGaussian() / 10;
    }
    int hash = 1;
    for (Activation act : Activation.values()) {
      float[] a = x.clone();
      e.biasActivation(act, a, rows, bias);
      hash = 31 * hash + Arrays.hashCode(a);
    }
    float[] s = x.clone();
    s[width + 2] = Float.NEGATIVE_INFINITY;
    float[] sums = new float[width];
    e.expColumns(s, rows, width, new float[width], sums);
    hash = 31 * hash + Arrays.hashCode(sums);
    float[] y = new float[x.length];
    e.layerNorm(x, 0, y, 0, rows, gamma, bias, 1e-5f);
    float[] z = new float[x.length];
    e.rmsNorm(x, 0, z, 0, rows, width, gamma, 1e-6f);
    hash = 31 * hash + Arrays.hashCode(z);
    float[] angles = Arrays.copyOf(gamma, width);
    e.rotateHalves(z, 0, width / 2, x, angles, 5, width / 2);
    hash = 31 * hash + Arrays.hashCode(z);
    // a tiled row's softmax step, two masked keys among them: the clamp on the bits
    float[] row = Arrays.copyOf(x, 2 * width + 1);
    row[3] = Float.NEGATIVE_INFINITY;
    row[2 * width] = Float.NEGATIVE_INFINITY;
    float rowSum = e.expShifted(row, 1, 2 * width, e.max(row, 1, 2 * width));
    hash = 31 * (31 * hash + Arrays.hashCode(row)) + Float.floatToIntBits(rowSum);
    // the statistics' step on the same row, twice, the second carrying the first's terms
    float[] positions = new float[2 * width];
    for (int j = 0; j < positions.length; j++) {
      positions[j] = j;
    }
    float[] moments = new float[e.momentFloats(2)];
    double[] terms = new double[2];
    for (float carry : new float[] {0f, 0.375f}) {
      float[] statsRow = Arrays.copyOf(x, 2 * width + 1);
      statsRow[3] = Float.NEGATIVE_INFINITY;
      float statsSum = e.expShiftedMoments(statsRow, 1, 2 * width,
          e.max(statsRow, 1, 2 * width) + carry, positions, 40.5f, moments, 1, carry);
      e.momentSums(moments, 1, terms);
      hash = 31 * (31 * hash + Arrays.hashCode(statsRow)) + Float.floatToIntBits(statsSum);
      hash = 31 * hash + Arrays.hashCode(terms);
    }
    return 31 * (31 * hash + Arrays.hashCode(s)) + Arrays.hashCode(y);
  }
}
