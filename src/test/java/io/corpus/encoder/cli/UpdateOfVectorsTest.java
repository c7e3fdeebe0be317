package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.testing.GoldenCase;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code output.mode = update} on vectors in: a row whose vectors moved by one float's last bit,
 * or whose mask changed, is encoded again; the others are reused.
 */
class UpdateOfVectorsTest {
  @TempDir
  Path tmp;

  private static String quoted(Path path) {
    return "\"" + path + "\"";
  }

  private JobRunner.Result run(GoldenCase golden, Path input, Path out, String mode)
      throws Exception {
    return JobRunner.run(tmp, "input.path = " + quoted(input), "input.mask-column = mask",
        "model.weights = " + quoted(golden.weights()),
        "model.naming = " + golden.naming().configName(), "model.heads = " + golden.heads(),
        "output.path = " + quoted(out), "output.mode = " + mode);
  }

  private static Map<String, String> hashes(SparkSession spark, Path out) {
    Map<String, String> byId = new HashMap<>();
    for (Row r : spark.read().parquet(out.resolve("embeddings").toString()).collectAsList()) {
      byId.put(r.getAs("id"), r.getAs("input_hash"));
    }
    return byId;
  }

  @Test
  void aVectorMovedByOneBitOrAChangedMaskIsEncodedAgainTheOthersReused() throws Exception {
    SparkSession spark = SparkTestSession.get();
    GoldenCase golden = GoldenCase.named("padded-prenorm-gelu");
    List<GoldenCase.InputRow> rows = golden.inputs();
    List<GoldenCase.InputRow> changed = new ArrayList<>(rows);
    float[][] nudged = rows.get(1).embeddings().clone();
    nudged[0] = nudged[0].clone();
    nudged[0][0] = Math.nextUp(nudged[0][0]);
    changed.set(1, new GoldenCase.InputRow(rows.get(1).id(), nudged, rows.get(1).mask()));
    int[] mask = rows.get(2).mask().clone();
    int last = mask.length - 1;
    while (mask[last] == 0) {
      last--;
    }
    mask[last] = 0;
    changed.set(2, new GoldenCase.InputRow(rows.get(2).id(), rows.get(2).embeddings(), mask));
    Path v1 = tmp.resolve("v1.parquet");
    Path v2 = tmp.resolve("v2.parquet");
    SparkInputs.frame(spark, rows, true).coalesce(1).write().parquet(v1.toString());
    SparkInputs.frame(spark, changed, true).coalesce(1).write().parquet(v2.toString());

    Path out = tmp.resolve("out");
    JobRunner.Result first = run(golden, v1, out, "error-if-exists");
    assertEquals(0, first.code(), first.error());
    Map<String, String> before = hashes(spark, out);
    JobRunner.Result update = run(golden, v2, out, "update");
    assertEquals(0, update.code(), update.error());
    assertEquals(Map.of("rows_encoded", 2L, "rows_reused", (long) rows.size() - 2,
        "rows_dropped", 0L), RunSummary.read(out.resolve("run-summary.json")).update());
    Map<String, String> after = hashes(spark, out);
    for (int i = 0; i < rows.size(); i++) {
      String id = rows.get(i).id();
      if (i == 1 || i == 2) {
        assertNotEquals(before.get(id), after.get(id), id);
      } else {
        assertEquals(before.get(id), after.get(id), id);
      }
    }
  }
}
