package io.corpus.encoder.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.SharedModels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * The driver's check of a tokenizer.json loads a file once for a max-tokens, however often it is
 * checked (before the job, then for the source it plans) or read ahead beside the model's load,
 * and still refuses what does not fit every time it is asked.
 */
class TokenizerCheckTest {
  @Test
  void aFileReadAheadIsNotLoadedAgainByTheCheckAndItsRefusalsStand() throws Exception {
    byte[] json = Files.readAllBytes(SharedModels.miniLm().resolve("tokenizer.json"));
    TextTokenizer.readAhead(json, 77);
    int loads = TextTokenizer.checkLoads();
    TextTokenizer.Vocabulary vocabulary = TextTokenizer.check(json, "MiniLM", 77, -1, 30522);
    assertEquals(loads, TextTokenizer.checkLoads(), "checked as read ahead: not loaded again");
    assertEquals(new TextTokenizer.Vocabulary(30522, 30521), vocabulary);
    assertEquals(vocabulary, TextTokenizer.check(json, "MiniLM", 77, -1, 30522));
    assertEquals(loads, TextTokenizer.checkLoads());
    IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
        () -> TextTokenizer.check(json, "MiniLM", 77, -1, 30000));
    assertTrue(small.getMessage().contains("has ids up to 30521"), small.getMessage());
    IllegalArgumentException overlap = assertThrows(IllegalArgumentException.class,
        () -> TextTokenizer.check(json, "MiniLM", 77, 75, 30522));
    assertTrue(overlap.getMessage().contains("chunk overlap 75"), overlap.getMessage());
    TextTokenizer.check(json, "MiniLM", 78, -1, 30522);
    assertEquals(loads + 1, TextTokenizer.checkLoads(), "another max-tokens is another load");
  }

  @Test
  void aFileThatFailsIsLeftToTheCheckToName() {
    byte[] broken = "{\"model\": {\"type\": \"Nonesuch\"}}".getBytes(StandardCharsets.UTF_8);
    TextTokenizer.readAhead(broken, 128);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TextTokenizer.check(broken, "folder/tokenizer.json", 128, -1, 10));
    assertTrue(e.getMessage().startsWith("Cannot load folder/tokenizer.json as a Hugging Face "
        + "tokenizer"), e.getMessage());
  }
}
