package io.corpus.encoder.pipeline;

import java.io.Serializable;
import org.apache.spark.SparkContext;
import org.apache.spark.util.LongAccumulator;

/**
 * Counters the encoder's tasks add to. Read on the driver after an action; a retried task may add
 * twice, so the run summary counts committed output, and these serve progress and checks.
 */
public final class EncodeMetrics implements Serializable {
  private final LongAccumulator sequencesEncoded;
  private final LongAccumulator tokensEncoded;
  private final LongAccumulator rowsSkipped;
  private final LongAccumulator forwardNanos;

  public EncodeMetrics(SparkContext sc) {
    this.sequencesEncoded = sc.longAccumulator("encoder.sequences");
    this.tokensEncoded = sc.longAccumulator("encoder.tokens");
    this.rowsSkipped = sc.longAccumulator("encoder.rows-skipped");
    this.forwardNanos = sc.longAccumulator("encoder.forward-nanos");
  }

  /** Sequences run through the forward pass (each once, whatever is written). */
  public LongAccumulator sequencesEncoded() {
    return sequencesEncoded;
  }

  /** Real tokens run through the forward pass. */
  public LongAccumulator tokensEncoded() {
    return tokensEncoded;
  }

  /** Time the tasks spent in the forward pass, summed over tasks. */
  public LongAccumulator forwardNanos() {
    return forwardNanos;
  }

  /** Invalid rows dropped under {@code handleInvalid = skip}. */
  public LongAccumulator rowsSkipped() {
    return rowsSkipped;
  }
}
