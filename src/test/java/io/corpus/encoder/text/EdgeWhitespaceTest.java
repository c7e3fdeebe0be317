package io.corpus.encoder.text;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EdgeWhitespaceTest {
  /**
   * Every code point for which Python 3.11's {@code chr(c).isspace()} holds, as
   * {@code [c for c in range(0x110000) if chr(c).isspace()]} printed them.
   */
  private static final int[] PYTHON_SPACES = {0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f,
      0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007,
      0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000};

  @Test
  void spaceIsWhatPythonCallsSpaceOverEveryCodePoint() {
    List<Integer> spaces = new ArrayList<>();
    for (int c = 0; c < 0x110000; c++) {
      if (EdgeWhitespace.isPythonSpace(c)) {
        spaces.add(c);
      }
    }
    assertEquals(java.util.Arrays.stream(PYTHON_SPACES).boxed().toList(), spaces);
  }

  @Test
  void stripsBothEdgesAsPythonDoesAndCountsWhatWentBefore() {
    // Python: "\n\u00a0 caf\u00e9\u3000bar \u2007\u202f\r\n".strip() == "caf\u00e9\u3000bar"
    assertEquals(new EdgeWhitespace.Stripped("caf\u00e9\u3000bar", 3),
        EdgeWhitespace.strip("\n\u00a0 caf\u00e9\u3000bar \u2007\u202f\r\n"));
    assertEquals(new EdgeWhitespace.Stripped("\ud83d\ude00 x", 2),
        EdgeWhitespace.strip("\u001c\u0085\ud83d\ude00 x\u2029"));
    assertEquals(new EdgeWhitespace.Stripped("", 4), EdgeWhitespace.strip(" \t\n\u3000"));
    assertEquals(new EdgeWhitespace.Stripped("\u200bword\u180e", 0),
        EdgeWhitespace.strip("\u200bword\u180e"));   // zero-width: not space to Python
    String same = "as given";
    assertEquals(same, EdgeWhitespace.strip(same).text());
  }

  @Test
  void spansMoveByWhatWentBeforeExceptSpecialTokens() {
    TextTokenizer.Spans spans = new TextTokenizer.Spans(new int[] {0, 0, 4}, new int[] {0, 3, 7},
        new boolean[] {true, false, false});
    TextTokenizer.Spans moved = spans.shifted(2);
    assertEquals(List.of(0, 2, 6), java.util.Arrays.stream(moved.starts()).boxed().toList());
    assertEquals(List.of(0, 5, 9), java.util.Arrays.stream(moved.ends()).boxed().toList());
  }
}
