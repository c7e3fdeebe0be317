package io.corpus.encoder.text;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The prompts a text may already begin with, compared as the tokenizer would see them: the
 * text's leading whitespace left out where the folder strips its texts (Python's
 * {@code str.strip()}), text and prompt lower-cased where it says {@code do_lower_case}, and the
 * prompt's own edge whitespace ignored, so that {@code "query: "} is held by {@code "query:foo"}
 * and by {@code "Query:  foo"} in an uncased folder. Only the start of a text is looked at: the
 * cost is a few dozen characters a row, whatever its length.
 */
public final class PromptPrefixes implements Serializable {
  /**
   * A prefix a text may hold.
   *
   * @param name what it is, for messages: the folder's name for the prompt ({@code query}), or
   *     what template it belongs to; "" for a prompt given as text
   * @param text the prefix as the folder or the template writes it
   * @param part for a template of several labels before the text, the index of this one (the
   *     parts before it are still written when a text holds it); 0 for a prompt
   */
  public record Prefix(String name, String text, int part) implements Serializable {
    /** As a message shows it: {@code 'search_query: ' (query)}. */
    public String shown() {
      return "'" + text.replace("\n", "\\n") + "'" + (name.isEmpty() ? "" : " (" + name + ")");
    }
  }

  /** Characters beyond the longest prefix that are lower-cased with it (a final sigma looks on). */
  private static final int LOWER_CASE_MARGIN = 8;

  private final List<Prefix> prefixes;   // longest compared form first
  private final List<String> compared;   // each as compared, in the same order
  private final boolean strip;
  private final boolean lowercase;
  private final int longest;

  private PromptPrefixes(List<Prefix> prefixes, List<String> compared, boolean strip,
      boolean lowercase) {
    this.prefixes = prefixes;
    this.compared = compared;
    this.strip = strip;
    this.lowercase = lowercase;
    this.longest = compared.stream().mapToInt(String::length).max().orElse(0);
  }

  /**
   * The prefixes in {@code given} order of precedence: of two that compare the same, the first
   * is kept; one that is nothing but whitespace is left out.
   *
   * @param strip whether the folder strips its texts' edge whitespace
   * @param lowercase whether it lower-cases them
   */
  public static PromptPrefixes of(Collection<Prefix> given, boolean strip, boolean lowercase) {
    List<Prefix> kept = new ArrayList<>();
    List<String> forms = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (Prefix prefix : given) {
      String form = EdgeWhitespace.strip(prefix.text()).text();
      form = lowercase ? form.toLowerCase(Locale.ROOT) : form;
      if (!form.isEmpty() && seen.add(form)) {
        kept.add(prefix);
        forms.add(form);
      }
    }
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < kept.size(); i++) {
      order.add(i);
    }
    // The longest first, so that of "Query:" and "Query: Represent this" the text holds the more.
    order.sort(Comparator.comparingInt((Integer i) -> -forms.get(i).length()));
    return new PromptPrefixes(order.stream().map(kept::get).toList(),
        order.stream().map(forms::get).toList(), strip, lowercase);
  }

  /** Whether there is no prefix to look for. */
  public boolean isEmpty() {
    return prefixes.isEmpty();
  }

  /** The prefixes looked for, the longest first. */
  public List<Prefix> prefixes() {
    return prefixes;
  }

  /** The prefix {@code text} begins with, as the tokenizer would see it; null for none. */
  public Prefix heldBy(String text) {
    if (prefixes.isEmpty()) {
      return null;
    }
    int start = 0;
    while (strip && start < text.length()
        && EdgeWhitespace.isPythonSpace(text.codePointAt(start))) {
      start += Character.charCount(text.codePointAt(start));
    }
    String head = text.substring(start, Math.min(text.length(),
        start + longest + LOWER_CASE_MARGIN));
    if (lowercase) {
      head = head.toLowerCase(Locale.ROOT);
    }
    for (int i = 0; i < prefixes.size(); i++) {
      if (head.startsWith(compared.get(i))) {
        return prefixes.get(i);
      }
    }
    return null;
  }
}
