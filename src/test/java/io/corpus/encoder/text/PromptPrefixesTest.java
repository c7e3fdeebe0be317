package io.corpus.encoder.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A text's start compared with a folder's prompts as its tokenizer would see both. */
class PromptPrefixesTest {
  private static final PromptPrefixes.Prefix QUERY = new PromptPrefixes.Prefix("query",
      "Query: ", 0);
  private static final PromptPrefixes.Prefix INSTRUCTED = new PromptPrefixes.Prefix("web",
      "Query: Given a web search query", 0);

  @Test
  void aStrippingFolderIgnoresEdgeWhitespaceAndTheLongestPromptWins() {
    PromptPrefixes prefixes = PromptPrefixes.of(List.of(QUERY, INSTRUCTED), true, false);
    assertEquals(QUERY, prefixes.heldBy("\u00a0\u3000 Query:what"));
    assertEquals(INSTRUCTED, prefixes.heldBy("Query: Given a web search query, find"));
    assertNull(prefixes.heldBy("query: lower case is another text here"));
    assertNull(prefixes.heldBy("A Query: in the middle"));
    assertNull(PromptPrefixes.of(List.of(QUERY), false, false).heldBy(" Query: kept space"));
  }

  @Test
  void anUncasedFolderComparesLowerCase() {
    PromptPrefixes prefixes = PromptPrefixes.of(List.of(QUERY), true, true);
    assertEquals(QUERY, prefixes.heldBy("QUERY: shouting"));
    assertEquals(QUERY, prefixes.heldBy("query:x"));
  }

  @Test
  void promptsThatCompareTheSameAreOneAndBlankOnesNone() {
    PromptPrefixes.Prefix given = new PromptPrefixes.Prefix("", "Query:", 0);
    PromptPrefixes prefixes = PromptPrefixes.of(List.of(given, QUERY,
        new PromptPrefixes.Prefix("blank", " \n", 0)), true, false);
    assertEquals(List.of(given), prefixes.prefixes());
    assertNull(PromptPrefixes.of(List.of(), true, false).heldBy("anything"));
  }
}
