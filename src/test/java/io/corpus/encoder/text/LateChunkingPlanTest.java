package io.corpus.encoder.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link LateChunking}'s windows and spans, on hand-made token spans. */
class LateChunkingPlanTest {
  /**
   * 300 positions in windows of 128 repeating 32: each next window starts 96 later and gives the
   * states past the one before's end; a window past the last needed is not run.
   */
  @Test
  void windowsStepByTheirLengthLessTheOverlapAndEachGivesWhatTheLastDidNot() {
    LateChunking late = new LateChunking(128, 32, 50, LateChunking.SpanRule.TOKENS);
    assertEquals(List.of(new LateChunking.Window(0, 128, 0), new LateChunking.Window(96, 224, 128),
        new LateChunking.Window(192, 300, 224)), late.windows(300));
    assertEquals(List.of(new LateChunking.Window(0, 128, 0)), late.windows(128));
    assertEquals(List.of(new LateChunking.Window(0, 128, 0), new LateChunking.Window(96, 129, 128)),
        late.windows(129));
  }

  /**
   * "[CLS] a b c. d e? f [SEP]" with C = 3: sentences "a b c." and "d e?" and "f"; the second
   * and third fit together, the first alone; the first span takes [CLS], the last [SEP].
   */
  @Test
  void sentencesAreKeptWholeUpToTheChunksTokens() {
    String text = "a b c. d e? f";
    TextTokenizer.Spans spans = spans(text, new int[][] {{0, 1}, {2, 3}, {4, 6}, {7, 8},
        {9, 11}, {12, 13}});
    LateChunking.Plan plan = new LateChunking(512, 0, 3, LateChunking.SpanRule.SENTENCES)
        .plan(spans, 1, 0, text);
    assertEquals(List.of(new LateChunking.Span(0, 4, 1, 4), new LateChunking.Span(4, 8, 4, 7)),
        plan.spans());
  }

  /**
   * A sentence longer than C is cut into runs of C, its rest joined by the sentences after it as
   * they fit; "3.5" and "y.z" (a mark before no gap) end none.
   */
  @Test
  void aSentenceLongerThanAChunkIsCutAndAMarkInsideAWordEndsNone() {
    String text = "x 3.5 y.z w. v";
    TextTokenizer.Spans spans = spans(text, new int[][] {{0, 1}, {2, 4}, {4, 5}, {6, 8},
        {8, 9}, {10, 12}, {13, 14}});
    LateChunking.Plan plan = new LateChunking(512, 0, 4, LateChunking.SpanRule.SENTENCES)
        .plan(spans, 1, 0, text);
    // "x 3. 5 y. z w." is one sentence of 6 tokens (positions 1..6): cut after 4; its last 2
    // and the sentence "v" fit in one chunk
    assertEquals(List.of(new LateChunking.Span(0, 5, 1, 5), new LateChunking.Span(5, 9, 5, 8)),
        plan.spans());
  }

  /**
   * A prompt's 2 tokens before the text: the first span starts where pooling does (0 when the
   * folder pools the prompt, 3 when it leaves [CLS] and the prompt out); a text of no token is
   * one span of all that is pooled.
   */
  @Test
  void theFirstSpanStartsWherePoolingDoes() {
    String text = "q: a b c";
    TextTokenizer.Spans spans = spans(text, new int[][] {{0, 1}, {1, 2}, {3, 4}, {5, 6},
        {7, 8}});
    LateChunking late = new LateChunking(512, 0, 2, LateChunking.SpanRule.TOKENS);
    assertEquals(new LateChunking.Span(0, 5, 3, 5), late.plan(spans, 3, 0, text).spans().get(0));
    assertEquals(new LateChunking.Span(3, 5, 3, 5), late.plan(spans, 3, 3, text).spans().get(0));
    TextTokenizer.Spans empty = spans("", new int[0][]);
    assertEquals(List.of(new LateChunking.Span(0, 2, 1, 1)),
        late.plan(empty, 1, 0, "").spans());
  }

  /** Settings that cannot make progress are refused, naming the value. */
  @Test
  void anOverlapThatLeavesNoNewTokenIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new LateChunking(128, 127, 10, LateChunking.SpanRule.TOKENS));
    assertTrue(e.getMessage().contains("chunk overlap 127"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> new LateChunking(128, 0, 0, LateChunking.SpanRule.TOKENS));
    assertTrue(e.getMessage().contains("not 0"), e.getMessage());
  }

  /** [CLS], the given tokens' spans, [SEP]. */
  private static TextTokenizer.Spans spans(String text, int[][] tokens) {
    int n = tokens.length + 2;
    int[] starts = new int[n];
    int[] ends = new int[n];
    boolean[] special = new boolean[n];
    special[0] = true;
    special[n - 1] = true;
    for (int t = 0; t < tokens.length; t++) {
      starts[t + 1] = tokens[t][0];
      ends[t + 1] = tokens[t][1];
    }
    return new TextTokenizer.Spans(starts, ends, special);
  }
}
