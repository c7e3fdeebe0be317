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

  private String refusalReading(String output, String input) {
    return assertThrows(IllegalArgumentException.class,
        () -> OutputPaths.check(output, Map.of("input.path", input))).getMessage();
  }

  @Test
  void aGlobInTheInputIsComparedAsSparkExpandsIt() throws Exception {
    Path data = Files.createDirectories(dir.resolve("data"));
    Files.writeString(data.resolve("data"), "the input file");
    String glob = data + "/d*";
    // The case: the output is the very file the glob reads.
    assertEquals("output.path " + data.resolve("data") + " is matched by input.path " + glob
        + ": the output must be a folder apart from what the job reads",
        refusalReading(data.resolve("data").toString(), glob));
    // An earlier output that the glob would read back, whether or not it exists yet.
    assertEquals("output.path " + data.resolve("docs-vectors") + " is matched by input.path "
        + glob + ": the output must be a folder apart from what the job reads",
        refusalReading(data.resolve("docs-vectors").toString(), glob));
    assertEquals("output.path " + data.resolve("docs/out") + " lies inside a match of "
        + "input.path " + glob + ": the output must be a folder apart from what the job reads",
        refusalReading(data.resolve("docs/out").toString(), glob));
    assertEquals("output.path " + dir.resolve("x1") + " may hold matches of input.path " + dir
        + "/x?/part-*.parquet: the output must be a folder apart from what the job reads",
        refusalReading(dir.resolve("x1").toString(), dir + "/x?/part-*.parquet"));
    assertEquals("output.path " + data.resolve("b") + " is matched by input.path " + data
        + "/{a,b}: the output must be a folder apart from what the job reads",
        refusalReading(data.resolve("b").toString(), data + "/{a,b}"));
    // A glob through a link: its real folder is compared.
    Files.createSymbolicLink(dir.resolve("link"), data);
    assertEquals("output.path " + data.resolve("data") + " is matched by input.path " + dir
        + "/link/d*: the output must be a folder apart from what the job reads",
        refusalReading(data.resolve("data").toString(), dir + "/link/d*"));
    // What the glob matches on disk, through a link the pattern cannot see.
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere/inner"));
    Files.createSymbolicLink(data.resolve("dlink"), dir.resolve("elsewhere"));
    assertEquals("output.path " + elsewhere + " lies inside " + dir.resolve("elsewhere")
        + ", a match of input.path " + glob + ": the output must be a folder apart from what the "
        + "job reads", refusalReading(elsewhere.toString(), glob));
    assertDoesNotThrow(() -> OutputPaths.check(data.resolve("vectors").toString(),
        Map.of("input.path", glob)));
    assertDoesNotThrow(() -> OutputPaths.check(dir.resolve("out").toString(),
        Map.of("input.path", glob)));
  }

  @Test
  void systemAndTopLevelFoldersAreRefused() {
    assertEquals("output.path /usr is a top-level folder of its file system, which other "
        + "programs share: the job replaces its output path whole, so name a folder of its own "
        + "inside one (/usr/vectors)", refusal("/usr"));
    assertEquals("output.path /tmp is a top-level folder of its file system, which other "
        + "programs share: the job replaces its output path whole, so name a folder of its own "
        + "inside one (/tmp/vectors)", refusal("/tmp"));
    assertEquals("output.path /etc/ssh lies inside the system folder /etc: the job replaces its "
        + "output path whole, so name a folder of its own", refusal("/etc/ssh"));
    assertEquals("output.path /usr/local/share/x lies inside the system folder /usr: the job "
        + "replaces its output path whole, so name a folder of its own",
        refusal("/usr/local/share/x"));
    assertEquals("output.path hdfs://nn/user is a top-level folder of its file system, which "
        + "other programs share: the job replaces its output path whole, so name a folder of its "
        + "own inside one (/user/vectors)", refusal("hdfs://nn/user"));
    allowed("/tmp/vectors");
    allowed("/srv/corpus/vectors");
    allowed("s3a://bucket/vectors");
    allowed("hdfs://nn/user/me/vectors");
  }
}
