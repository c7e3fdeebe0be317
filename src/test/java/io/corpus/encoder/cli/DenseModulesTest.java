package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.testing.SparkInputs;
import io.corpus.encoder.testing.SparkTestSession;
import io.corpus.encoder.testing.Tolerances;
import io.corpus.encoder.weights.ModelFolder;
import io.corpus.encoder.weights.SafetensorsWriter;
import io.corpus.encoder.weights.WeightsLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import org.apache.commons.io.FileUtils;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sentence-transformers pipeline with Dense modules after pooling (EmbeddingGemma's 2_Dense and
 * 3_Dense, LaBSE's tanh projection): a DistilBERT case folder given a Dense of 32 → 48 with a
 * bias and tanh, then one of 48 → 16 without a bias, then Normalize. The pooled vectors equal
 * the reference's mean state through both modules, computed here in double; modules the job
 * does not run are refused, never skipped.
 */
class DenseModulesTest {
  @TempDir
  Path tmp;

  @Test
  void pooledVectorsGoThroughTheDenseModulesBeforeNormalize() throws Exception {
    Random random = new Random(31);
    float[] w1 = gaussian(random, 48 * 32, 0.3);
    float[] b1 = gaussian(random, 48, 0.1);
    float[] w2 = gaussian(random, 16 * 48, 0.2);
    Path folder = folderWithDense(w1, b1, w2);
    FolderCases cases = new FolderCases("distilbert-cases", tmp);
    JsonNode texts = cases.json("distilbert-embedding", "texts.json");
    Path output = tmp.resolve("out");
    JobRunner.Result run = JobRunner.run(tmp,
        "input { path = \"" + cases.parquet(SparkTestSession.get(), texts, false)
            + "\", text-column = text, max-tokens = 48 }",
        "model.path = \"" + folder + "\"", "output.path = \"" + output + "\"");
    assertEquals(0, run.code(), run.error());
    Map<String, Row> rows = FolderCases.byId(SparkTestSession.get().read()
        .parquet(output.resolve("embeddings").toString()).collectAsList());
    double worst = 0;
    for (JsonNode t : texts) {
      JsonNode states = t.get("last_hidden_state");
      double[] mean = new double[32];
      for (JsonNode state : states) {
        for (int i = 0; i < 32; i++) {
          mean[i] += state.get(i).asDouble() / states.size();
        }
      }
      double[] hidden = new double[48];
      for (int o = 0; o < 48; o++) {
        double sum = b1[o];
        for (int i = 0; i < 32; i++) {
          sum += w1[o * 32 + i] * mean[i];
        }
        hidden[o] = Math.tanh(sum);
      }
      double[] expected = new double[16];
      for (int o = 0; o < 16; o++) {
        for (int i = 0; i < 48; i++) {
          expected[o] += w2[o * 48 + i] * hidden[i];
        }
      }
      double[] got = SparkInputs.vector(rows.get(t.get("id").asText()).getAs("pooled"));
      assertEquals(16, got.length);
      worst = Math.max(worst, 1 - Tolerances.cosine(got, expected));
      double norm = 0;
      for (double v : got) {
        norm += v * v;
      }
      assertEquals(1, norm, 1e-5, "normalized after the Dense modules");
    }
    assertTrue(worst <= 1e-6, "1 - cosine " + worst);
    assertEquals(16, RunSummary.read(output.resolve("run-summary.json")).outputs()
        .get("pooled_width"), "the width written, after the Dense modules (the encoder's is 32)");
  }

  /** Unknown modules, a Dense before pooling and widths that do not chain: refused, one line. */
  @Test
  void modulesTheJobDoesNotRunAreRefused() throws Exception {
    Path folder = folderWithDense(new float[48 * 32], new float[48], new float[16 * 48]);
    Map<String, String> refused = Map.of(
        modules("Transformer", "1_Pooling:Pooling", "2_Dense:Dense", "3_Dense:Dense",
            "4_Normalize:LayerNorm"),
        "names the module sentence_transformers.models.LayerNorm, which this job does not run",
        modules("Transformer", "2_Dense:Dense", "1_Pooling:Pooling", "3_Dense:Dense"),
        "a Dense module comes after Pooling here (or projects every token in a PyLate folder",
        modules("Transformer", "1_Pooling:Pooling", "3_Dense:Dense"),
        "in_features = 48 and out_features = 16, expected 32");
    for (Map.Entry<String, String> r : refused.entrySet()) {
      Files.writeString(folder.resolve("modules.json"), r.getKey());
      Exception e = assertThrows(RuntimeException.class,
          () -> WeightsLoader.load(ModelFolder.read(folder)));
      assertTrue(e.getMessage().contains(r.getValue()), e.getMessage());
      assertTrue(!e.getMessage().contains("\n"), e.getMessage());
    }
  }

  private Path folderWithDense(float[] w1, float[] b1, float[] w2) throws Exception {
    Path folder = tmp.resolve("dense-model");
    FileUtils.copyDirectory(new FolderCases("distilbert-cases", tmp)
        .folder("distilbert-embedding").toFile(), folder.toFile());
    Files.createDirectories(folder.resolve("2_Dense"));
    Files.writeString(folder.resolve("2_Dense/config.json"), "{\"in_features\": 32, "
        + "\"out_features\": 48, \"bias\": true, \"activation_function\": "
        + "\"torch.nn.modules.activation.Tanh\"}");
    new SafetensorsWriter().put("linear.weight", w1, 48, 32).put("linear.bias", b1, 48)
        .write(folder.resolve("2_Dense/model.safetensors"));
    Files.createDirectories(folder.resolve("3_Dense"));
    Files.writeString(folder.resolve("3_Dense/config.json"), "{\"in_features\": 48, "
        + "\"out_features\": 16, \"bias\": false, \"activation_function\": "
        + "\"torch.nn.modules.linear.Identity\"}");
    new SafetensorsWriter().put("linear.weight", w2, 16, 48)
        .write(folder.resolve("3_Dense/model.safetensors"));
    Files.writeString(folder.resolve("modules.json"), modules("Transformer", "1_Pooling:Pooling",
        "2_Dense:Dense", "3_Dense:Dense", "4_Normalize:Normalize"));
    return folder;
  }

  /** modules.json of sentence_transformers.models modules, each "path:Type" (or "Type"). */
  private static String modules(String... modules) {
    StringBuilder json = new StringBuilder("[");
    for (int i = 0; i < modules.length; i++) {
      String[] m = modules[i].contains(":") ? modules[i].split(":") : new String[] {"", modules[i]};
      json.append(i == 0 ? "" : ", ").append("{\"idx\": ").append(i).append(", \"name\": \"")
          .append(i).append("\", \"path\": \"").append(m[0])
          .append("\", \"type\": \"sentence_transformers.models.").append(m[1]).append("\"}");
    }
    return json.append("]").toString();
  }

  private static float[] gaussian(Random random, int n, double scale) {
    float[] out = new float[n];
    for (int i = 0; i < n; i++) {
      out[i] = (float) (random.nextGaussian() * scale);
    }
    return out;
  }
}
