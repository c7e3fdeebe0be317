package io.corpus.encoder.kernel;

/**
 * {@link Elementwise} on {@code Math.exp} and {@code Math.tanh}, accumulating in double: the
 * fallback, and the reference the vector implementation is tested against.
 */
final class ScalarElementwise implements Elementwise {
  private static final double SQRT_HALF = Math.sqrt(0.5);
  private static final double SQRT_2_OVER_PI = Math.sqrt(2.0 / Math.PI);

  private final String why;

  /** The reference the tests compare the vector passes with. */
  ScalarElementwise() {
    this("the reference");
  }

  /** The passes of a JVM that does not use the vector ones, for this reason. */
  ScalarElementwise(String why) {
    this.why = why;
  }

  @Override
  public String describe() {
    return "ScalarElementwise (" + why + ")";
  }

  @Override
  public float max(float[] x, int offset, int length) {
    float max = Float.NEGATIVE_INFINITY;
    for (int i = offset; i < offset + length; i++) {
      max = Math.max(max, x[i]);
    }
    return max;
  }

  @Override
  public float expShifted(float[] x, int offset, int length, float shift) {
    double sum = 0;
    for (int i = offset; i < offset + length; i++) {
      float e = (float) Math.exp(x[i] - shift);
      x[i] = e;
      sum += e;
    }
    return (float) sum;
  }

  @Override
  public int momentFloats(int rows) {
    return 2 * rows;
  }

  @Override
  public float expShiftedMoments(float[] x, int offset, int length, float shift,
      float[] positions, float center, float[] moments, int row, float carry) {
    double sum = 0;
    double entropy = 0;
    double distance = 0;
    for (int j = 0; j < length; j++) {
      float e = (float) Math.exp(x[offset + j] - shift);
      if (e > 0) {
        entropy += e * ((double) shift - x[offset + j]);
        distance += e * (double) Math.abs(positions[j] - center);
      }
      x[offset + j] = e;
      sum += e;
    }
    int at = 2 * row;
    moments[at] = carry == 0 ? (float) entropy : (float) (carry * (double) moments[at] + entropy);
    moments[at + 1] = carry == 0 ? (float) distance
        : (float) (carry * (double) moments[at + 1] + distance);
    return (float) sum;
  }

  @Override
  public void momentSums(float[] moments, int row, double[] sums) {
    sums[0] = moments[2 * row];
    sums[1] = moments[2 * row + 1];
  }

  @Override
  public void expColumns(float[] x, int rows, int cols, float[] maxes, float[] sums) {
    for (int c = 0; c < cols; c++) {
      float max = Float.NEGATIVE_INFINITY;
      for (int r = 0; r < rows; r++) {
        max = Math.max(max, x[r * cols + c]);
      }
      float shift = max == Float.NEGATIVE_INFINITY ? 0f : max;
      double sum = 0;
      for (int r = 0; r < rows; r++) {
        float e = (float) Math.exp(x[r * cols + c] - shift);
        x[r * cols + c] = e;
        sum += e;
      }
      maxes[c] = max;
      sums[c] = (float) sum;
    }
  }

  @Override
  public float entropy(float[] a, int offset, int length) {
    double sum = 0;
    for (int i = offset; i < offset + length; i++) {
      if (a[i] > 0) {
        sum -= a[i] * Math.log(a[i]);
      }
    }
    return (float) sum;
  }

  @Override
  public float weightedDistance(float[] a, int offset, int length, float[] positions,
      float center) {
    double sum = 0;
    for (int j = 0; j < length; j++) {
      sum += a[offset + j] * Math.abs(positions[j] - center);
    }
    return (float) sum;
  }

  @Override
  public void scale(float[] x, int offset, int length, float factor) {
    for (int i = offset; i < offset + length; i++) {
      x[i] *= factor;
    }
  }

  @Override
  public void biasActivation(Activation activation, float[] x, int rows, float[] bias) {
    int width = bias.length;
    for (int r = 0; r < rows; r++) {
      for (int i = 0; i < width; i++) {
        int k = r * width + i;
        double v = x[k] + bias[i];
        x[k] = (float) switch (activation) {
          case RELU -> Math.max(v, 0);
          case GELU -> 0.5 * v * (1 + erf(v * SQRT_HALF));
          case GELU_TANH -> 0.5 * v * (1 + Math.tanh(SQRT_2_OVER_PI * (v + 0.044715 * v * v * v)));
          case SILU -> v / (1 + Math.exp(-v));
        };
      }
    }
  }

  @Override
  public void layerNorm(float[] x, int xOffset, float[] y, int yOffset, int rows, float[] gamma,
      float[] beta, float eps) {
    int width = gamma.length;
    for (int r = 0; r < rows; r++) {
      int xo = xOffset + r * width;
      int yo = yOffset + r * width;
      double sum = 0;
      for (int i = 0; i < width; i++) {
        sum += x[xo + i];
      }
      double mean = sum / width;
      float inverseStd = inverseRoot(squaresAbout(x, xo, width, mean), width, eps);
      float m = (float) mean;
      for (int i = 0; i < width; i++) {
        y[yo + i] = (x[xo + i] - m) * inverseStd * gamma[i] + beta[i];
      }
    }
  }

  @Override
  public void rmsNorm(float[] x, int xOffset, float[] y, int yOffset, int rows, int stride,
      float[] gamma, float eps) {
    int width = gamma.length;
    for (int r = 0; r < rows; r++) {
      int in = xOffset + r * stride;
      int out = yOffset + r * stride;
      float inverse = inverseRoot(squaresAbout(x, in, width, 0), width, eps);
      for (int i = 0; i < width; i++) {
        y[out + i] = x[in + i] * inverse * gamma[i];
      }
    }
  }

  /** Σ (x[at + i] − center)² over the row, in double. */
  private static double squaresAbout(float[] x, int at, int width, double center) {
    double squares = 0;
    for (int i = 0; i < width; i++) {
      double d = x[at + i] - center;
      squares += d * d;
    }
    return squares;
  }

  /** 1 / sqrt(squares / width + eps), rounded to float: the norms' scale. */
  static float inverseRoot(double squares, int width, float eps) {
    return (float) (1.0 / Math.sqrt(squares / width + eps));
  }

  @Override
  public void rotateHalves(float[] x, int a, int b, float[] cos, float[] sin, int at, int n) {
    for (int i = 0; i < n; i++) {
      float first = x[a + i];
      float second = x[b + i];
      float c = cos[at + i];
      float s = sin[at + i];
      x[a + i] = first * c - second * s;
      x[b + i] = second * c + first * s;
    }
  }

  /**
   * The error function to float precision: Abramowitz and Stegun 7.1.26 (absolute error below
   * 1.5e-7). Java has no {@code erf}; tests check this one against Commons Math's.
   */
  static double erf(double x) {
    double ax = Math.abs(x);
    double t = 1.0 / (1.0 + ErfCoefficients.P * ax);
    double y = 1.0 - ErfCoefficients.poly(t) * Math.exp(-ax * ax);
    return x < 0 ? -y : y;
  }
}
