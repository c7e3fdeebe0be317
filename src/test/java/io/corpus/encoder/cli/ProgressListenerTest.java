package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.SparkTestSession;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.util.LongAccumulator;
import org.junit.jupiter.api.Test;

/** What the progress lines say, from a job's accumulators. */
class ProgressListenerTest {
  @Test
  void rowsAndTokensThenThePhaseOnceEveryRowIsDone() throws Exception {
    SparkContext sc = SparkTestSession.get().sparkContext();
    LongAccumulator rows = sc.longAccumulator("test.rows");
    LongAccumulator tokens = sc.longAccumulator("test.tokens");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream console = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    try (ProgressListener progress = ProgressListener.start(sc, rows.id(), tokens.id(), 4,
        console, 0)) {
      progress.print();
      new JavaSparkContext(sc).parallelize(List.of(10, 20, 30, 40), 2).foreach(t -> {
        rows.add(1);
        tokens.add(t);
      });
      sc.listenerBus().waitUntilEmpty();
      progress.print();
      progress.phase("writing the report");
      progress.print();
      progress.print();
    }
    List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
    assertEquals(4, lines.size(), String.join("\n", lines));
    assertTrue(lines.get(0).startsWith("progress: 0 of 4 rows (0.0%), 0 tokens at 0 tokens/s, "
        + "about ? left"), lines.get(0));
    assertTrue(lines.get(1).startsWith("progress: 4 of 4 rows (100.0%), 100 tokens at "),
        lines.get(1));
    // Not the 100 % line again, with a falling rate: what the job does now.
    assertTrue(lines.get(2).matches("progress: all 4 rows encoded; writing the report, \\d+ s so "
        + "far"), lines.get(2));
    assertTrue(lines.get(3).startsWith("progress: all 4 rows encoded; writing the report"),
        lines.get(3));
  }
}
