package io.corpus.encoder.text;

import io.corpus.encoder.common.ConfigName;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * Late chunking (Günther et al. 2024): a document is encoded whole and each chunk's vector is the
 * mean of the contextual token states of its own span. This plans it for one tokenized document
 * of N positions (special tokens and prompt included):
 *
 * <ul>
 *   <li>the <b>macro-windows</b> the encoder runs, when N is more than the model's M positions:
 *       slices of the document's positions, each next one starting M − ω after the one before
 *       (ω, the overlap, gives its first new tokens context); a position's state comes from the
 *       first window that holds it past its overlap, as the paper's long late chunking
 *       ({@code _embed_with_overlap} in jina-ai/late-chunking) joins them. A window is a raw
 *       slice: only the first holds the leading special token, only the last the closing one;
 *   <li>the <b>chunk spans</b>: the text's tokens cut into runs of C tokens, or into runs of
 *       whole sentences of at most C tokens (a longer sentence cut into runs of C). As the paper
 *       pools them, the first span also takes the positions before the text (the leading special
 *       token and a prompt, those pooling leaves out excepted) and the last takes the closing
 *       special tokens.
 * </ul>
 *
 * A sentence ends at a token whose text ends in {@code . ! ?} (or {@code 。！？}) and that is the
 * text's last token or is followed by a gap (whitespace) before the next token: {@code 3.5} and
 * {@code e.g.x} do not end one, {@code Done. Next} does.
 */
public final class LateChunking implements Serializable {
  /** Where chunk spans end. */
  public enum SpanRule implements ConfigName {
    NONE("none"), TOKENS("tokens"), SENTENCES("sentences");

    private final String configName;

    SpanRule(String configName) {
      this.configName = configName;
    }

    @Override
    public String configName() {
      return configName;
    }
  }

  /**
   * A slice of the document's positions that the encoder runs as one sequence.
   *
   * @param start its first position
   * @param end past its last
   * @param keepFrom the first position whose state this window gives (the ones before come from
   *     the window before)
   */
  public record Window(int start, int end, int keepFrom) {
    public int length() {
      return end - start;
    }
  }

  /**
   * A chunk: the positions its vector is the mean of, and where its text is.
   *
   * @param from its first position
   * @param to past its last
   * @param textFrom its first text token's position
   * @param textTo past its last text token (textFrom = textTo: the document has no text token)
   */
  public record Span(int from, int to, int textFrom, int textTo) {}

  /** The windows to encode and the spans to pool, in the document's order. */
  public record Plan(List<Window> windows, List<Span> spans) {}

  /**
   * What the settings ask for, before the model's positions are known.
   *
   * @param rule NONE: no late chunking
   * @param chunkTokens C
   * @param overlap ω
   */
  public record Asked(SpanRule rule, int chunkTokens, int overlap) implements Serializable {
    /** The planner for windows of {@code maxPositions}; null when no late chunking is asked. */
    public LateChunking planner(int maxPositions) {
      return rule == SpanRule.NONE ? null
          : new LateChunking(maxPositions, overlap, chunkTokens, rule);
    }
  }

  private final int maxPositions;
  private final int overlap;
  private final int chunkTokens;
  private final SpanRule rule;

  /**
   * @param maxPositions M, the most positions one window may have
   * @param overlap ω, the positions each window repeats of the one before; below M
   * @param chunkTokens C, the most text tokens a span holds; 1 or more
   * @param rule TOKENS or SENTENCES
   */
  public LateChunking(int maxPositions, int overlap, int chunkTokens, SpanRule rule) {
    if (rule == SpanRule.NONE) {
      throw new IllegalArgumentException("Late chunking needs a span rule: tokens or sentences");
    }
    if (chunkTokens < 1) {
      throw new IllegalArgumentException("A late chunk holds at least one token, not "
          + chunkTokens);
    }
    if (overlap < 0 || overlap >= maxPositions - 1) {
      throw new IllegalArgumentException("The chunk overlap " + overlap + " of late chunking's "
          + "windows must be 0 or more and below " + (maxPositions - 1) + ", a window's "
          + maxPositions + " positions (max-tokens) less one, so that every window brings new "
          + "tokens");
    }
    this.maxPositions = maxPositions;
    this.overlap = overlap;
    this.chunkTokens = chunkTokens;
    this.rule = rule;
  }

  /**
   * The plan for a document of {@code spans.starts().length} positions.
   *
   * @param spans each position's place in the tokenized text and whether it is special
   * @param textFrom the first position of the text itself (past the leading special token and a
   *     prompt)
   * @param pooledFrom the first position the first span pools (past a prompt pooling leaves out)
   * @param text the text as tokenized, for sentence ends (read only by SENTENCES)
   */
  public Plan plan(TextTokenizer.Spans spans, int textFrom, int pooledFrom, String text) {
    int n = spans.special().length;
    int textTo = textFrom;
    for (int t = textFrom; t < n && !spans.special()[t]; t++) {
      textTo = t + 1;
    }
    return new Plan(windows(n), spans(spans, textFrom, textTo, pooledFrom, n, text));
  }

  /** The macro-windows over n positions. */
  List<Window> windows(int n) {
    List<Window> windows = new ArrayList<>();
    windows.add(new Window(0, Math.min(n, maxPositions), 0));
    int step = maxPositions - overlap;
    for (int start = step; windows.get(windows.size() - 1).end() < n; start += step) {
      windows.add(new Window(start, Math.min(start + maxPositions, n),
          windows.get(windows.size() - 1).end()));
    }
    return windows;
  }

  private List<Span> spans(TextTokenizer.Spans spans, int textFrom, int textTo, int pooledFrom,
      int n, String text) {
    List<int[]> runs = new ArrayList<>();   // [from, to) over text positions
    if (rule == SpanRule.TOKENS) {
      for (int from = textFrom; from < textTo; from += chunkTokens) {
        runs.add(new int[] {from, Math.min(from + chunkTokens, textTo)});
      }
    } else {
      int[] points = text.codePoints().toArray();   // spans count code points
      int from = textFrom;
      int sentenceFrom = textFrom;
      for (int t = textFrom; t < textTo; t++) {
        if (t + 1 < textTo && !endsSentence(spans, t, points)) {
          continue;
        }
        int sentenceTo = t + 1;
        if (sentenceTo - from > chunkTokens && sentenceFrom > from) {
          runs.add(new int[] {from, sentenceFrom});   // this sentence starts the next chunk
          from = sentenceFrom;
        }
        while (sentenceTo - from > chunkTokens) {     // a sentence longer than a chunk
          runs.add(new int[] {from, from + chunkTokens});
          from += chunkTokens;
        }
        sentenceFrom = sentenceTo;
      }
      if (from < textTo) {
        runs.add(new int[] {from, textTo});
      }
    }
    if (runs.isEmpty()) {
      return List.of(new Span(Math.min(pooledFrom, n - 1), n, textFrom, textFrom));
    }
    List<Span> out = new ArrayList<>(runs.size());
    for (int i = 0; i < runs.size(); i++) {
      int[] run = runs.get(i);
      out.add(new Span(i == 0 ? Math.min(pooledFrom, run[0]) : run[0],
          i == runs.size() - 1 ? n : run[1], run[0], run[1]));
    }
    return out;
  }

  /** Whether text token t ends a sentence (it is not the text's last). */
  private static boolean endsSentence(TextTokenizer.Spans spans, int t, int[] text) {
    int end = spans.ends()[t];
    if (end <= spans.starts()[t] || end > text.length || !sentenceMark(text[end - 1])) {
      return false;
    }
    return spans.starts()[t + 1] > end;
  }

  private static boolean sentenceMark(int c) {
    return c == '.' || c == '!' || c == '?' || c == '。' || c == '！' || c == '？';
  }
}
