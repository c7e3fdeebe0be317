package io.corpus.encoder.text;

import java.util.Locale;

/**
 * Python's {@code str.lower()}, which sentence-transformers' Transformer module applies to every
 * text when its {@code sentence_bert_config.json} says {@code do_lower_case}: the full Unicode
 * lower-case mapping, Greek final sigma included ({@code ΟΔΟΣ} → {@code οδος} ending in ς), which
 * Java's {@code toLowerCase(Locale.ROOT)} computes alike. One code point becomes two only for
 * {@code İ} (U+0130 → {@code i} and a combining dot above); positions in the lowered text map
 * back to the text given.
 */
public final class Lowercase {
  private static final int DOTTED_CAPITAL_I = 0x130;

  private Lowercase() {
  }

  /**
   * A lowered text.
   *
   * @param text the text in lower case
   * @param toGiven for each code point position of {@code text} (and its end), the position in
   *     the text given; null when they are the same
   */
  public record Lowered(String text, int[] toGiven) {
    /** The position in the text given of code point position {@code lowered} of this text. */
    public int given(int lowered) {
      return toGiven == null ? lowered : toGiven[lowered];
    }
  }

  /** {@code text.lower()} as Python computes it, with the map of its positions. */
  public static Lowered of(String text) {
    String lowered = text.toLowerCase(Locale.ROOT);
    int given = text.codePointCount(0, text.length());
    int count = lowered.codePointCount(0, lowered.length());
    if (given == count) {
      return new Lowered(lowered, null);
    }
    int[] toGiven = new int[count + 1];
    int at = 0;
    int position = 0;
    for (int i = 0; i < text.length(); i += Character.charCount(text.codePointAt(i))) {
      int width = text.codePointAt(i) == DOTTED_CAPITAL_I ? 2 : 1;
      for (int k = 0; k < width; k++) {
        toGiven[at++] = position;
      }
      position++;
    }
    if (at != count) {
      throw new IllegalStateException("lower-casing made " + count + " code points of "
          + given + ", and only U+0130 was expected to become two");
    }
    toGiven[count] = given;
    return new Lowered(lowered, toGiven);
  }
}
