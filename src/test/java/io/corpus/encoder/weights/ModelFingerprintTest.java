package io.corpus.encoder.weights;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import io.corpus.encoder.testing.FolderCopies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A model's fingerprint follows the files it is read from (config, tokenizer, weights,
 * sentence-transformers modules and prompts) and nothing else in its folder.
 */
class ModelFingerprintTest {
  @TempDir
  Path tmp;

  private static final Path CASE = Path.of("src/test/resources/qwen3-cases/qwen3-embedding");

  private Path copy(String name) throws IOException {
    return FolderCopies.copy(CASE, tmp.resolve(name));
  }

  private static String of(Path folder) {
    return ModelFingerprint.ofFolder(ModelFolder.read(folder));
  }

  @Test
  void sameFilesElsewhereGiveTheSameFingerprintAndAnyReadFileChangesIt() throws Exception {
    String original = of(CASE);
    Path copy = copy("a");
    assertEquals(original, of(copy));
    Files.createDirectories(copy.resolve("onnx"));
    Files.writeString(copy.resolve("onnx/model.onnx"), "not read by the job");
    Files.writeString(copy.resolve("README.md"), "a model card");
    assertEquals(original, of(copy), "files the job does not read");

    for (String file : new String[] {"model.safetensors", "tokenizer.json",
        "config_sentence_transformers.json", "1_Pooling/config.json", "colbert_linear.pt",
        "sparse_linear.pt"}) {
      Path changed = copy("changed-" + file.replace('/', '-'));
      Files.write(changed.resolve(file), new byte[] {' '}, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      assertNotEquals(original, of(changed), file);
    }
  }

  /**
   * A Dense module wherever modules.json puts it ("dense", not "2_Dense"), or behind a link
   * ("2_Dense" linking to a folder elsewhere), is part of the fingerprint; a module path that
   * climbs out of the folder is refused.
   */
  @Test
  void everyModuleFolderModulesJsonNamesIsInTheFingerprint() throws Exception {
    Path gemma = Path.of("src/test/resources/gemma3-cases/gemma3-embedding");
    Path renamed = FolderCopies.copy(gemma, tmp.resolve("renamed"));
    Files.move(renamed.resolve("2_Dense"), renamed.resolve("dense"));
    Files.writeString(renamed.resolve("modules.json"), Files.readString(
        renamed.resolve("modules.json")).replace("\"2_Dense\"", "\"dense\""));
    Path linked = FolderCopies.copy(gemma, tmp.resolve("linked"));
    Path target = tmp.resolve("elsewhere-dense");
    Files.move(linked.resolve("2_Dense"), target);
    Files.createSymbolicLink(linked.resolve("2_Dense"), target);
    for (Path[] c : new Path[][] {{renamed, renamed.resolve("dense/model.safetensors")},
        {linked, target.resolve("model.safetensors")}}) {
      String before = of(c[0]);
      assertEquals(before, of(c[0]));
      Files.write(c[1], new byte[] {' '}, StandardOpenOption.APPEND);
      assertNotEquals(before, of(c[0]), c[1].toString());
    }
    Path climbing = FolderCopies.copy(gemma, tmp.resolve("climbing"));
    Files.writeString(climbing.resolve("modules.json"), Files.readString(
        climbing.resolve("modules.json")).replace("\"2_Dense\"", "\"../renamed/dense\""));
    WeightsException e = org.junit.jupiter.api.Assertions.assertThrows(WeightsException.class,
        () -> ModelFolder.read(climbing));
    assertEquals(climbing.resolve("modules.json") + " names the module path '../renamed/dense'"
        + ", which is outside the model folder " + climbing + "; only the folder's own files "
        + "are read", e.getMessage());
  }
}
