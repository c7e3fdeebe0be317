package io.corpus.encoder.text;

/**
 * Python's {@code str.strip()}, which sentence-transformers' Transformer module applies to every
 * text before tokenizing: it removes from both ends every character Python's
 * {@code str.isspace()} accepts (Unicode categories Zs, and bidirectional classes WS, B and S:
 * tab to carriage return, U+001C–U+001F, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029,
 * U+202F, U+205F, U+3000). Java's {@code String.strip} is not the same: it keeps U+0085, U+00A0,
 * U+2007 and U+202F.
 */
public final class EdgeWhitespace {
  private EdgeWhitespace() {
  }

  /**
   * A text with its edges removed.
   *
   * @param text what is left
   * @param leadingCodePoints how many code points were removed before it, to map a position in
   *     {@code text} back to one in the original
   */
  public record Stripped(String text, int leadingCodePoints) {}

  /** Whether Python's {@code str.isspace()} holds for the one-character string of {@code c}. */
  public static boolean isPythonSpace(int c) {
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0
        || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029
        || c == 0x202F || c == 0x205F || c == 0x3000;
  }

  /** {@code text.strip()} as Python computes it. */
  public static Stripped strip(String text) {
    int start = 0;
    int lead = 0;
    while (start < text.length() && isPythonSpace(text.codePointAt(start))) {
      start += Character.charCount(text.codePointAt(start));
      lead++;
    }
    int end = text.length();
    while (end > start && isPythonSpace(text.codePointBefore(end))) {
      end -= Character.charCount(text.codePointBefore(end));
    }
    return new Stripped(start == 0 && end == text.length() ? text : text.substring(start, end),
        lead);
  }
}
