package io.corpus.encoder.io;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutputPathsTest {
  @TempDir Path dir;

  private String refusal(String output) {
    Map<String, String> reads = new LinkedHashMap<>();
    reads.put("input.path", dir.resolve("data/docs.parquet").toString());
    reads.put("model.path", dir.resolve("models/minilm").toString());
    return assertThrows(IllegalArgumentException.class,
        () -> OutputPaths.check(output, reads)).getMessage();
  }

  private void allowed(String output) {
    Map<String, String> reads = Map.of("input.path", dir.resolve("data/docs.parquet").toString(),
        "model.path", dir.resolve("models/minilm").toString());
    assertDoesNotThrow(() -> OutputPaths.check(output, reads));
  }

  @Test
  void theInputItselfAFolderHoldingItOrOneInsideItAreRefused() throws Exception {
    Files.createDirectories(dir.resolve("data/docs.parquet"));
    String input = dir.resolve("data/docs.parquet").toString();
    assertEquals("output.path " + input + " is input.path " + input + ": the output must be a "
        + "folder apart from what the job reads", refusal(input));
    assertEquals("output.path " + dir.resolve("data") + " holds input.path " + input
        + ": the output must be a folder apart from what the job reads",
        refusal(dir.resolve("data").toString()));
    assertEquals("output.path " + input + "/out lies inside input.path " + input
        + ": the output must be a folder apart from what the job reads", refusal(input + "/out"));
    assertEquals("output.path " + dir + "/models/minilm/../minilm is model.path "
        + dir.resolve("models/minilm") + ": the output must be a folder apart from what the job "
        + "reads", refusal(dir + "/models/minilm/../minilm"));
    allowed(dir.resolve("data/vectors").toString());
    allowed(dir.resolve("data/docs.parquet-vectors").toString());
  }

  @Test
  void aLinkToTheInputIsTheInput() throws Exception {
    Files.createDirectories(dir.resolve("data"));
    Files.createSymbolicLink(dir.resolve("link"), dir.resolve("data"));
    String message = refusal(dir.resolve("link").toString());
    assertEquals("output.path " + dir.resolve("link") + " holds input.path "
        + dir.resolve("data/docs.parquet") + ": the output must be a folder apart from what the "
        + "job reads", message);
  }

  @Test
  void theRootAndTheHomeFolderAreRefused() {
    assertEquals("output.path / is the root of its file system: the job replaces its output "
        + "path whole, so name a folder of its own", refusal("/"));
    String home = System.getProperty("user.home");
    assertEquals("output.path " + home + " is the home folder " + Path.of(home).normalize()
        + ": the job replaces its output path whole, so name a folder of its own", refusal(home));
    String parent = Path.of(home).toAbsolutePath().getParent().toString();
    if (!parent.equals("/")) {
      assertEquals("output.path " + parent + " holds the home folder " + home + ": the job "
          + "replaces its output path whole, so name a folder of its own", refusal(parent));
    }
    allowed(Path.of(home, "vectors").toString());
  }
}
