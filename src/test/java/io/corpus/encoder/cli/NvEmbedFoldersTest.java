package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.weights.ModelFolder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NV-Embed-v2 (src/test/resources/nvembed-cases/nv-embed-v2, made by
 * jobs/samples/make_nvembed_cases.py with a float64 port of modeling_nvembed.py): its
 * bidirectional Mistral in F16 shards, its latent-attention block, the mean after the
 * instruction, normalized; the texts read as its encode reads them (the instruction from
 * input.prompt, the eos token appended as text, nothing stripped).
 */
class NvEmbedFoldersTest {
  private static final double TOLERANCE = 1e-4;

  @TempDir
  Path tmp;

  @Test
  void nvEmbedGivesItsOwnEncodesVectors() throws Exception {
    FolderCases cases = new FolderCases("nvembed-cases", tmp);
    ModelFolder folder = ModelFolder.read(cases.folder("nv-embed-v2"));
    assertEquals("nvembed", folder.family().name());
    assertFalse(folder.architecture().causal(), "its Mistral attends both ways");
    assertEquals("</s>", folder.textSuffix());
    assertFalse(folder.stripsTexts());
    JsonNode instruction = cases.json("nv-embed-v2", "instruction.json");
    JsonNode texts = cases.json("nv-embed-v2", "texts.json");
    Path input = cases.parquet(SparkTestSession.get(), texts, false);
    String prompt = instruction.get("instruction").asText().replace("\n", "\\n");
    Map<String, Row> job = cases.runJob("nv-embed-v2", input, false, "input { max-tokens = 100, "
        + "prompt = \"" + prompt + "\" }", "nvembed");
    FolderCases.Worst worst = FolderCases.compare(texts, List.of(job));
    System.out.printf("nv-embed-v2: worst ‖Δ‖/‖ref‖ of last hidden states %.2e, worst 1 - "
        + "cosine of pooled vectors %.2e%n", worst.states(), worst.cosine());
    assertTrue(worst.states() <= TOLERANCE, "hidden states " + worst.states());
    assertTrue(worst.cosine() <= 1e-6, "pooled vectors " + worst.cosine());
  }
}
