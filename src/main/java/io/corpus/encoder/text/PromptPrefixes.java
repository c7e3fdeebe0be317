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

  /** A prefix and the form a text's start is compared with. */
  private record Compared(Prefix prefix, String form) implements Serializable {}

  private final List<Compared> prefixes;   // the longest form first
  private final boolean strip;
  private final boolean lowercase;
  private final int longest;

  private PromptPrefixes(List<Compared> prefixes, boolean strip, boolean lowercase) {
    this.prefixes = prefixes;
    this.strip = strip;
    this.lowercase = lowercase;
    this.longest = prefixes.isEmpty() ? 0 : prefixes.get(0).form().length();
  }

  /**
   * The prefixes in {@code given} order of precedence: of two that compare the same, the first
   * is kept; one that is nothing but whitespace is left out.
   *
   * @param strip whether the folder strips its texts' edge whitespace
   * @param lowercase whether it lower-cases them
   */
  public static PromptPrefixes of(Collection<Prefix> given, boolean strip, boolean lowercase) {
    List<Compared> kept = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (Prefix prefix : given) {
      String form = EdgeWhitespace.strip(prefix.text()).text();
      form = lowercase ? form.toLowerCase(Locale.ROOT) : form;
      if (!form.isEmpty() && seen.add(form)) {
        kept.add(new Compared(prefix, form));
      }
    }
    // The longest first (a stable sort), so that of "Query:" and "Query: Represent this" the
    // text holds the more.
    kept.sort(Comparator.comparingInt((Compared c) -> -c.form().length()));
    return new PromptPrefixes(List.copyOf(kept), strip, lowercase);
  }

  /** Whether there is no prefix to look for. */
  public boolean isEmpty() {
    return prefixes.isEmpty();
  }

  /** The prefixes looked for, the longest first. */
  public List<Prefix> prefixes() {
    return prefixes.stream().map(Compared::prefix).toList();
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
    for (Compared c : prefixes) {
      if (head.startsWith(c.form())) {
        return c.prefix();
      }
    }
    return null;
  }
}
