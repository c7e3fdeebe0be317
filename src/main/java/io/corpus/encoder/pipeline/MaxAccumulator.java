package io.corpus.encoder.pipeline;

import org.apache.spark.util.AccumulatorV2;

/** The largest value any task added; Spark's own accumulators sum. */
public final class MaxAccumulator extends AccumulatorV2<Long, Long> {
  private long max;

  @Override
  public boolean isZero() {
    return max == 0;
  }

  @Override
  public MaxAccumulator copy() {
    MaxAccumulator copy = new MaxAccumulator();
    copy.max = max;
    return copy;
  }

  @Override
  public void reset() {
    max = 0;
  }

  @Override
  public void add(Long value) {
    max = Math.max(max, value);
  }

  @Override
  public void merge(AccumulatorV2<Long, Long> other) {
    max = Math.max(max, other.value());
  }

  @Override
  public Long value() {
    return max;
  }
}
