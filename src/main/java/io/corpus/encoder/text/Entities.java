package io.corpus.encoder.text;

import io.corpus.encoder.common.ConfigName;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Entities from per-token label scores, as Hugging Face's token-classification pipeline groups
 * them ({@code TokenClassificationPipeline.gather_pre_entities}, {@code aggregate},
 * {@code aggregate_words}, {@code group_entities}, {@code aggregate_overlapping_entities}):
 * special tokens dropped; with {@code first}, {@code average} and {@code max} the sub-word tokens
 * of a word first agree on one label; then adjacent tokens (or words) whose tags agree, B- always
 * starting a new one, become one entity whose score is the mean of theirs; entities labelled
 * {@code O} are left out. Offsets are code points of the text, as Python's are.
 *
 * <p>Which token continues a word: with a word-aware tokenizer (WordPiece, whose model has a
 * {@code continuing_subword_prefix}) a token whose string is not as long as its span of the text
 * ({@code ##ing}); else (SentencePiece, byte-level BPE) the pipeline's heuristic, a token that
 * neither starts at a space nor follows one. The unknown token always starts a word.
 */
public final class Entities {
  private Entities() {}

  /** How sub-word tokens and their labels become entities ({@code aggregation_strategy}). */
  public enum Aggregation implements ConfigName {
    /** Tokens grouped as they are labelled; a word may be split between entities. */
    SIMPLE,
    /** A word takes its first token's label and score. */
    FIRST,
    /** A word takes the label of its tokens' mean scores. */
    AVERAGE,
    /** A word takes the label of its token with the highest score. */
    MAX;

    @Override
    public String configName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * One entity.
   *
   * @param label its tag, without the B- or I- prefix
   * @param start where it starts in the text, in code points
   * @param end where it ends, in code points (exclusive)
   * @param score the mean score of its tokens or words
   * @param text the text's code points from start to end
   */
  public record Entity(String label, int start, int end, float score, String text) {}

  /**
   * What the grouping needs of the tokenizer.
   *
   * @param unknownId the id of the unknown token (-1: none)
   * @param wordAware whether the tokenizer marks continuing sub-words (WordPiece's {@code ##})
   */
  public record WordRules(int unknownId, boolean wordAware) implements java.io.Serializable {}

  /**
   * The entities of one sequence.
   *
   * @param codePoints the text, as code points
   * @param ids (T) token ids
   * @param tokens (T) token strings
   * @param spans (T) where each token is, and which are special
   * @param scores (T, L) each token's label probabilities, row-major
   * @param labels (L) the label of each score
   */
  public static List<Entity> of(int[] codePoints, int[] ids, String[] tokens,
      TextTokenizer.Spans spans, float[] scores, List<String> labels, WordRules rules,
      Aggregation aggregation) {
    int labelCount = labels.size();
    List<Token> kept = new ArrayList<>();
    for (int t = 0; t < ids.length; t++) {
      if (spans.special()[t]) {
        continue;
      }
      int start = spans.starts()[t];
      int end = spans.ends()[t];
      boolean subword;
      if (rules.wordAware()) {
        subword = tokens[t].codePointCount(0, tokens[t].length()) != end - start;
      } else {
        subword = start > 0 && codePoints[start - 1] != ' '
            && (start >= codePoints.length || codePoints[start] != ' ');
      }
      if (ids[t] == rules.unknownId()) {
        subword = false;
      }
      kept.add(new Token(start, end, subword, scores, t * labelCount, labelCount));
    }
    List<Labelled> labelled = aggregation == Aggregation.SIMPLE ? byToken(kept, labels)
        : byWord(kept, labels, aggregation);
    return group(labelled, codePoints);
  }

  /**
   * The entities of a text's windows as one list: sorted by start, and of entities that overlap
   * (a window repeats the end of the one before) the longer kept, then the higher score.
   */
  public static List<Entity> merge(List<Entity> windows) {
    if (windows.isEmpty()) {
      return windows;
    }
    List<Entity> sorted = new ArrayList<>(windows);
    sorted.sort(Comparator.comparingInt(Entity::start));   // stable, as Python's sorted
    List<Entity> merged = new ArrayList<>();
    Entity previous = sorted.get(0);
    for (Entity entity : sorted) {
      if (previous.start() <= entity.start() && entity.start() < previous.end()) {
        int length = entity.end() - entity.start();
        int previousLength = previous.end() - previous.start();
        if (length > previousLength
            || length == previousLength && entity.score() > previous.score()) {
          previous = entity;
        }
      } else {
        merged.add(previous);
        previous = entity;
      }
    }
    merged.add(previous);
    return merged;
  }

  /** A token the grouping reads: its span, whether it continues a word, its scores. */
  private record Token(int start, int end, boolean subword, float[] scores, int offset,
      int count) {
    int best() {
      int best = 0;
      for (int l = 1; l < count; l++) {
        if (scores[offset + l] > scores[offset + best]) {
          best = l;
        }
      }
      return best;
    }

    float score(int label) {
      return scores[offset + label];
    }
  }

  /** A token or word with its label. */
  private record Labelled(String label, double score, int start, int end) {}

  private static List<Labelled> byToken(List<Token> tokens, List<String> labels) {
    List<Labelled> out = new ArrayList<>();
    for (Token token : tokens) {
      int best = token.best();
      out.add(new Labelled(labels.get(best), token.score(best), token.start(), token.end()));
    }
    return out;
  }

  /** {@code aggregate_words}: a word is a token and the sub-word tokens after it. */
  private static List<Labelled> byWord(List<Token> tokens, List<String> labels,
      Aggregation aggregation) {
    List<Labelled> out = new ArrayList<>();
    int first = 0;
    for (int t = 1; t <= tokens.size(); t++) {
      if (t == tokens.size() || !tokens.get(t).subword()) {
        out.add(word(tokens.subList(first, t), labels, aggregation));
        first = t;
      }
    }
    return out;
  }

  /** {@code aggregate_word}. */
  private static Labelled word(List<Token> word, List<String> labels, Aggregation aggregation) {
    int start = word.get(0).start();
    int end = word.get(word.size() - 1).end();
    switch (aggregation) {
      case FIRST -> {
        Token token = word.get(0);
        int best = token.best();
        return new Labelled(labels.get(best), token.score(best), start, end);
      }
      case MAX -> {
        Token top = word.get(0);
        for (Token token : word) {
          if (token.score(token.best()) > top.score(top.best())) {
            top = token;
          }
        }
        int best = top.best();
        return new Labelled(labels.get(best), top.score(best), start, end);
      }
      case AVERAGE -> {
        double[] mean = new double[labels.size()];
        for (Token token : word) {
          for (int l = 0; l < mean.length; l++) {
            mean[l] += token.score(l) / (double) word.size();
          }
        }
        int best = 0;
        for (int l = 1; l < mean.length; l++) {
          if (mean[l] > mean[best]) {
            best = l;
          }
        }
        return new Labelled(labels.get(best), mean[best], start, end);
      }
      default -> throw new IllegalArgumentException(aggregation + " does not group words");
    }
  }

  /** {@code group_entities}, then the {@code O} groups left out. */
  private static List<Entity> group(List<Labelled> labelled, int[] codePoints) {
    List<Entity> entities = new ArrayList<>();
    int first = 0;
    for (int i = 1; i <= labelled.size(); i++) {
      if (i == labelled.size() || startsGroup(labelled.get(i), labelled.get(i - 1))) {
        if (first < i) {
          addGroup(labelled.subList(first, i), codePoints, entities);
        }
        first = i;
      }
    }
    return entities;
  }

  private static boolean startsGroup(Labelled entity, Labelled previous) {
    return entity.label().startsWith("B-") || !tag(entity.label()).equals(tag(previous.label()));
  }

  /** The label without its B- or I- prefix (a label without one continues, as I- does). */
  private static String tag(String label) {
    return label.startsWith("B-") || label.startsWith("I-") ? label.substring(2) : label;
  }

  /** {@code group_sub_entities}: the first's label after its first '-', the mean score. */
  private static void addGroup(List<Labelled> group, int[] codePoints, List<Entity> out) {
    String label = group.get(0).label();
    String entity = label.substring(label.indexOf('-') + 1);
    if (entity.equals("O")) {
      return;
    }
    double sum = 0;
    for (Labelled l : group) {
      sum += l.score();
    }
    int start = group.get(0).start();
    int end = group.get(group.size() - 1).end();
    out.add(new Entity(entity, start, end, (float) (sum / group.size()),
        new String(codePoints, start, end - start)));
  }
}
