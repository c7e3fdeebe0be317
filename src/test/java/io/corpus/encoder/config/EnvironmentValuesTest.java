package io.corpus.encoder.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvironmentValuesTest {
  private final EnvironmentValues environment = new EnvironmentValues(Map.of(
      "output.path", "/mnt/acme-secret/vectors", "input.path", "s3a://acme-bucket/docs"));

  @Test
  void aValueIsRedactedWholeAndInThePathsTheJobMakesBesideIt() {
    assertEquals("Output path <output.path from the environment> is being written by run x "
        + "(lock file <output.path's folder from the environment>/.<output.path's name from the "
        + "environment>.lock)", environment.redact("Output path /mnt/acme-secret/vectors is "
        + "being written by run x (lock file /mnt/acme-secret/.vectors.lock)"));
    String plan = environment.redact("{\"path\":\"s3a://acme-bucket/docs/part-0.parquet\"}");
    assertEquals("{\"path\":\"<input.path from the environment>/part-0.parquet\"}", plan);
    String staging = environment.redact("file:/mnt/acme-secret/.vectors.staging-1/embeddings");
    assertFalse(staging.contains("acme") || staging.contains("vectors"), staging);
  }

  @Test
  void otherTextStaysAsItIs() {
    assertEquals("sentence vectors", environment.redact("sentence vectors"));
  }
}
