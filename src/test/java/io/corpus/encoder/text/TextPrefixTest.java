package io.corpus.encoder.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.SharedModels;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A long text tokenized from a prefix gives exactly the tokens of the whole text tokenized and
 * truncated, and only pipelines where that holds are cut.
 */
class TextPrefixTest {
  private static final int MAX_TOKENS = 64;
  // Words that stress the pipeline: accents (stripped), CJK (one token a character), punctuation
  // (its own token), sub-words, a word over WordPiece's 100 characters ([UNK]), control and
  // non-ASCII whitespace characters, and a combining accent right after whitespace.
  private static final String[] WORDS = {"the", "Tokenization", "naïve", "Crème", "brûlée",
      "東京都", "中文", "e.g.,", "(C++)", "don't", "--", "ΣΊΣΥΦΟΣ", "ǅemal", "x".repeat(120),
      "co\u0000de", "a\u00a0b", "\u3000", "\u0301accent", "🙂", "https://example.org/a?b=c"};
  private static final String[] GAPS = {" ", "  ", "\n", "\t", " \r\n "};
  private static byte[] miniLm;

  @BeforeAll
  static void load() throws IOException {
    miniLm = Files.readAllBytes(SharedModels.miniLm().resolve("tokenizer.json"));
  }

  private static String text(Random random, int words) {
    StringBuilder text = new StringBuilder();
    for (int w = 0; w < words; w++) {
      text.append(WORDS[random.nextInt(WORDS.length)]).append(GAPS[random.nextInt(GAPS.length)]);
    }
    return text.toString();
  }

  @Test
  void aLongTextTokenizedFromAPrefixEqualsTheWholeTextTruncated() {
    assertTrue(TextPrefix.safe(miniLm), "MiniLM's pipeline is BERT's");
    Random random = new Random(7);
    int cutShort = 0;
    try (TextTokenizer whole = TextTokenizer.fromJson(miniLm, MAX_TOKENS, -1, true, false);
        TextTokenizer prefix = TextTokenizer.fromJson(miniLm, MAX_TOKENS, -1, true, true)) {
      for (int i = 0; i < 300; i++) {
        // from under the first prefix (8 characters a token) to many times it
        String text = text(random, 20 + random.nextInt(i % 3 == 0 ? 3000 : 300));
        TextTokenizer.Tokens expected = whole.encode(text);
        TextTokenizer.Tokens actual = prefix.encode(text);
        String where = "text " + i + " (" + text.length() + " characters)";
        assertArrayEquals(expected.ids(), actual.ids(), where);
        assertArrayEquals(expected.typeIds(), actual.typeIds(), where);
        assertArrayEquals(expected.tokens(), actual.tokens(), where);
        assertEquals(expected.truncated(), actual.truncated(), where);
        assertArrayEquals(expected.spans().starts(), actual.spans().starts(), where);
        assertArrayEquals(expected.spans().ends(), actual.spans().ends(), where);
        cutShort += expected.truncated() && text.length() > 8 * MAX_TOKENS ? 1 : 0;
      }
    }
    assertTrue(cutShort > 100, "only " + cutShort + " texts were long enough to be cut");
  }

  @Test
  void onlyABertPipelineIsCut() {
    String bert = new String(miniLm, StandardCharsets.UTF_8);
    assertFalse(TextPrefix.safe(bert.replace("\"BertPreTokenizer\"", "\"Metaspace\"")
        .getBytes(StandardCharsets.UTF_8)), "a Metaspace pre-tokenizer");
    assertFalse(TextPrefix.safe(bert.replace("\"type\": \"WordPiece\",", "\"type\": \"BPE\",")
        .replace("\"type\":\"WordPiece\",", "\"type\":\"BPE\",")
        .getBytes(StandardCharsets.UTF_8)), "a BPE model");
    assertFalse(TextPrefix.safe(bert.replace("\"[MASK]\"", "\"[MA SK]\"")
        .getBytes(StandardCharsets.UTF_8)), "an added token with a space in it");
    assertFalse(TextPrefix.safe(bert.replace("\"truncation\": null",
        "\"truncation\": {\"direction\": \"Left\", \"max_length\": 128}")
        .replace("\"truncation\":null",
        "\"truncation\":{\"direction\":\"Left\",\"max_length\":128}")
        .getBytes(StandardCharsets.UTF_8)), "truncated from the left");
  }

  @Test
  void theCutIsWhereWhitespaceBegins() {
    assertEquals(5, TextPrefix.cut("abcde fgh", 3));
    assertEquals(3, TextPrefix.cut("abc\ndef", 3));
    assertEquals(-1, TextPrefix.cut("abcdefgh", 3));
  }
}
