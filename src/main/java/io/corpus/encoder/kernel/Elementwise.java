package io.corpus.encoder.kernel;

import java.util.logging.Logger;

/**
 * The element-wise passes around the matrix products: softmax (exp), bias plus activation (erf
 * through exp, tanh), layer and RMS norms, rotary positions; and the passes over attention rows
 * that head statistics need (entropy, distance). Java's {@code Math.exp} costs about 25 ns here,
 * which would make these as slow as the products themselves; the Vector API's lane-wise EXP and
 * TANH run at about half a nanosecond per float. {@link #INSTANCE} is the vector implementation
 * where this JVM compiles the Vector API to vector instructions ({@link VectorApi}: the module,
 * added by {@code jobs/jvm.options}, and the JIT's flags), else the scalar one, with a warning
 * that says why. Chosen once, here.
 */
public interface Elementwise {
  Elementwise INSTANCE = Choice.choose();

  /** Which implementation, and its vector width: {@code VectorElementwise (512-bit)}. */
  String describe();

  /** The largest of {@code x[offset, offset + length)} (negative infinity if empty). */
  float max(float[] x, int offset, int length);

  /**
   * x[i] := exp(x[i] − shift) for {@code x[offset, offset + length)}, in place; returns their
   * sum. Entries at negative infinity become 0. The online softmax of tiled attention: the shift
   * is at least every entry, and NaN where one is, as {@link #max} gives.
   */
  float expShifted(float[] x, int offset, int length, float shift);

  /**
   * The floats {@link #expShiftedMoments} needs for the terms of {@code rows} attention rows (each
   * row's kept apart, lane by lane, until {@link #momentSums} adds them up), then its scratch.
   */
  int momentFloats(int rows);

  /**
   * {@link #expShifted}, gathering in the same pass, over the exponentials e = exp(x − shift),
   * the terms e · (shift − x) and e · |positions[j] − center| of a tiled attention row's
   * statistics (its entropy and distance) into the row's place in {@code moments} (of
   * {@link #momentFloats} floats), whose terms from earlier calls are first multiplied by
   * {@code carry}: the online softmax's rescaling when the row's max grows, 0 on the row's first
   * call (what was there is dropped). An entry at −∞ becomes 0 and adds nothing to either.
   * Returns Σ e, with expShifted's bits.
   */
  float expShiftedMoments(float[] x, int offset, int length, float shift, float[] positions,
      float center, float[] moments, int row, float carry);

  /**
   * Row {@code row}'s terms so far ({@link #expShiftedMoments}): Σ e · (shift − x) into
   * {@code sums[0]}, Σ e · |positions[j] − center| into {@code sums[1]}, added in double.
   */
  void momentSums(float[] moments, int row, double[] sums);

  /**
   * The softmax down the columns of a row-major (rows, cols) matrix, but for the division: each
   * column's entries x become exp(x − the column's max), and {@code sums[c]} their sum. Entries
   * at −∞ become 0; a column of only −∞ becomes zeros with sum 0, never NaN. The caller divides
   * (or scales what the weights multiply). Running down columns needs no reduction across vector
   * lanes: every pass streams whole rows. {@code maxes} is scratch; both hold {@code cols}.
   */
  void expColumns(float[] x, int rows, int cols, float[] maxes, float[] sums);

  /**
   * −Σ a ln a over {@code a[offset, offset + length)}, in nats, with 0 ln 0 = 0: the entropy of
   * one row of attention weights.
   */
  float entropy(float[] a, int offset, int length);

  /**
   * Σ a[offset + j] · |positions[j] − center| for j in [0, length): the mean distance a row of
   * attention weights reaches, with the keys' positions.
   */
  float weightedDistance(float[] a, int offset, int length, float[] positions, float center);

  /** x[i] *= factor for {@code x[offset, offset + length)}. */
  void scale(float[] x, int offset, int length, float factor);

  /** Each of {@code rows} rows of x (width {@code bias.length}) := act(row + bias), in place. */
  void biasActivation(Activation activation, float[] x, int rows, float[] bias);

  /**
   * Layer norm of {@code rows} rows of width {@code gamma.length}, from x into y (x == y
   * allowed): (x − mean) / sqrt(var + eps) · γ + β, with the biased variance.
   */
  void layerNorm(float[] x, int xOffset, float[] y, int yOffset, int rows, float[] gamma,
      float[] beta, float eps);

  /**
   * RMS norm of {@code rows} vectors of width {@code gamma.length}, the r-th at
   * {@code xOffset + r · stride}, into y at {@code yOffset + r · stride} (x == y allowed):
   * x / sqrt(mean(x²) + eps) · γ, the root taken in double.
   */
  void rmsNorm(float[] x, int xOffset, float[] y, int yOffset, int rows, int stride,
      float[] gamma, float eps);

  /**
   * Rotates {@code n} pairs in place, pair i being (x[a + i], x[b + i]) and its angle's cosine and
   * sine {@code cos[at + i]}, {@code sin[at + i]}: (x[a + i], x[b + i]) := (x[a + i]·cos −
   * x[b + i]·sin, x[b + i]·cos + x[a + i]·sin), each product rounded, then the sum (no fused
   * multiply-add): rotary positions in their half-split form.
   */
  void rotateHalves(float[] x, int a, int b, float[] cos, float[] sin, int at, int n);

  /** Picks the implementation once and says which. */
  final class Choice {
    private Choice() {}

    static Elementwise choose() {
      Logger log = Logger.getLogger(Elementwise.class.getName());
      VectorApi.Decision decision = VectorApi.decision();
      if (decision.use()) {
        try {
          return (Elementwise) Class.forName("io.corpus.encoder.kernel.VectorElementwise")
              .getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
          log.warning("Vector API present but unusable (" + e + "); element-wise passes run "
              + "scalar");
          return new ScalarElementwise("Vector API unusable: " + e);
        }
      }
      log.warning("Softmax, GELU and the norms run scalar, about 10 times slower a float than "
          + "on vectors: " + decision.reason());
      return new ScalarElementwise(decision.reason());
    }
  }
}
