package io.corpus.encoder.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.ChildJvm;
import io.corpus.encoder.testing.SharedModels;
import io.corpus.encoder.testing.Slow;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DJL would load whatever file sits at its cache path; the job loads only its own checked copy of
 * the tokenizers library, and refuses a library named by RUST_LIBRARY_PATH that it cannot trust.
 */
@Slow
class PlantedTokenizerLibraryTest {
  private static final String HELLO_WORLD = "[101, 7592, 1010, 2088, 102]";

  @TempDir
  Path tmp;

  private ChildJvm.Result probe(Map<String, String> env) throws Exception {
    Map<String, String> withCache = new HashMap<>(env);
    withCache.put("XDG_CACHE_HOME", tmp.resolve("cache").toString());
    return ChildJvm.run(TokenizerProbe.class, withCache, List.of("-Djava.io.tmpdir=" + tmp),
        SharedModels.miniLm().resolve("tokenizer.json").toString());
  }

  @Test
  void aLibraryPlantedInDjlsCacheIsNotLoaded() throws Exception {
    Path cache = tmp.resolve("djl-cache");
    Path planted = cache.resolve("tokenizers/0.21.0-0.38.0-cpu-linux-x86_64/libtokenizers.so");
    Files.createDirectories(planted.getParent());
    Files.writeString(planted, "planted: not the jar's library");
    ChildJvm.Result result = probe(Map.of("DJL_CACHE_DIR", cache.toString(),
        "ENGINE_CACHE_DIR", cache.toString()));
    assertEquals(0, result.exitCode(), result.err());
    String[] lines = result.lines();
    assertEquals(HELLO_WORLD, lines[0]);
    assertFalse(lines[1].isEmpty(), "a tokenizers library is mapped");
    for (String file : lines[1].split(" ")) {   // the copy the job made in its cache
      assertTrue(Path.of(file).getParent().getParent().equals(tmp.resolve("cache/corpus-encoder"))
          && Path.of(file).getParent().getFileName().toString().startsWith("tokenizers-"), file);
    }
  }

  @Test
  void aLibraryTheEnvironmentNamesIsRefusedUnlessTrusted() throws Exception {
    Path planted = tmp.resolve("shared/libtokenizers.so");
    Files.createDirectories(planted.getParent());
    Files.writeString(planted, "planted: not the jar's library");
    ChildJvm.Result result = probe(Map.of("RUST_LIBRARY_PATH", planted.toString()));
    assertNotEquals(0, result.exitCode());
    assertTrue(result.err().contains("Not loading the tokenizers library that the environment "
        + "variable RUST_LIBRARY_PATH names: " + planted + " differs from native/lib/"),
        result.err());

    Path link = tmp.resolve("link.so");
    Files.createSymbolicLink(link, planted);
    result = probe(Map.of("RUST_LIBRARY_PATH", link.toString()));
    assertNotEquals(0, result.exitCode());
    assertTrue(result.err().contains(link + " is a symbolic link"), result.err());
  }
}
