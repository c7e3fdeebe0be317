package io.corpus.encoder.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.testing.SparkTestSession;
import java.util.Collections;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.junit.jupiter.api.Test;

/** The task-side loop: what a split costs before its first row. */
class PartitionEncoderTest {
  /** A model no task may reach: fetching it fails the test. */
  private static final class Unreachable extends WeightsHandle {
    @Override
    EncoderModel get() {
      throw new IllegalStateException("the split fetched the model");
    }

    @Override
    void destroy() {}
  }

  @Test
  void aSplitWithoutRowsFetchesNoModelAndOpensNoReader() {
    EncodeMetrics metrics = new EncodeMetrics(SparkTestSession.get().sparkContext());
    // Settings, source, output and attention are never read for an empty split: null here.
    PartitionEncoder encode = new PartitionEncoder(new Unreachable(), Precision.FLOAT32, null,
        null, null, null, 4096, true, metrics);

    assertFalse(encode.call(Collections.<InternalRow>emptyIterator()).hasNext());
    assertEquals(1, metrics.executors().size(), "the executor is noted all the same");

    InternalRow row = new GenericInternalRow(new Object[] {1L});
    IllegalStateException fetched = assertThrows(IllegalStateException.class,
        () -> encode.call(List.of(row).iterator()));
    assertEquals("the split fetched the model", fetched.getMessage());
  }
}
