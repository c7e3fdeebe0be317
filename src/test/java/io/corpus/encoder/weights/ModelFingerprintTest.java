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
}
