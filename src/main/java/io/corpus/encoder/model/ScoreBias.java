package io.corpus.encoder.model;

/**
 * A bias added to every attention score by how far the key stands from the query, the same for
 * every layer: MPNet's learned relative buckets, JinaBERT's ALiBi. It is added after the 1/√D
 * scaling and before the masks, as the families' modelling code adds it.
 *
 * @param kind which bias
 * @param buckets of relative buckets: the table's rows (MPNet's
 *     {@code relative_attention_num_buckets}); 0 otherwise
 * @param maxDistance of relative buckets: the distance at which the log-spaced buckets end
 */
public record ScoreBias(Kind kind, int buckets, int maxDistance) implements PositionTerms {

  /** The biases this job computes. */
  public enum Kind {
    /**
     * T5's bidirectional buckets as MPNet computes them: a learned (buckets, H) table
     * ({@code relative_attention_bias}) read at the bucket of key − query.
     */
    RELATIVE_BUCKETS,
    /** ALiBi, symmetric: −slope_h · |key − query|, slopes from H (Press et al.). */
    ALIBI
  }

  public ScoreBias {
    if (kind == Kind.RELATIVE_BUCKETS && (buckets < 4 || buckets % 2 != 0 || maxDistance < 1)) {
      throw new IllegalArgumentException("relative buckets need an even count of at least 4 "
          + "and a positive maximum distance, got " + buckets + " and " + maxDistance);
    }
  }

  /** MPNet's: a learned table of {@code buckets} rows, log-spaced up to {@code maxDistance}. */
  public static ScoreBias relativeBuckets(int buckets, int maxDistance) {
    return new ScoreBias(Kind.RELATIVE_BUCKETS, buckets, maxDistance);
  }

  /** ALiBi's linear penalty by distance. */
  public static ScoreBias alibi() {
    return new ScoreBias(Kind.ALIBI, 0, 0);
  }

  /**
   * The bucket of {@code relative} = key − query, as MPNet's {@code relative_position_bucket}:
   * half the buckets for keys before the query, half for those after; distances under a quarter
   * of the buckets each have their own, larger ones share log-spaced buckets up to
   * {@code maxDistance}. The log is taken in float32, as PyTorch takes it, so the edges fall
   * where they fall there.
   */
  public int bucket(int relative) {
    int half = buckets / 2;
    int n = -relative;
    int bucket = n < 0 ? half : 0;
    n = Math.abs(n);
    int exact = half / 2;
    if (n < exact) {
      return bucket + n;
    }
    float log = (float) Math.log((float) n / exact);
    float ratio = log / (float) Math.log((double) maxDistance / exact);
    int large = exact + (int) (ratio * (half - exact));
    return bucket + Math.min(large, half - 1);
  }

  /** ALiBi's slope of head h of H, as the ALiBi paper's code and JinaBERT compute them. */
  public static double alibiSlope(int h, int heads) {
    int power = Integer.highestOneBit(heads);
    if (h < power) {
      return powerOfTwoSlope(h, power);
    }
    return powerOfTwoSlope(2 * (h - power), 2 * power);
  }

  private static double powerOfTwoSlope(int h, int heads) {
    double start = Math.pow(2, -Math.pow(2, -(Math.log(heads) / Math.log(2) - 3)));
    return Math.pow(start, h + 1);
  }

  /**
   * The bias of head h (of H) for key − query = {@code relative}; {@code table} is the
   * (buckets, H) table of relative buckets, unused otherwise.
   */
  public double value(int h, int heads, int relative, float[] table) {
    return switch (kind) {
      case RELATIVE_BUCKETS -> table[bucket(relative) * heads + h];
      case ALIBI -> -alibiSlope(h, heads) * Math.abs(relative);
    };
  }
}
