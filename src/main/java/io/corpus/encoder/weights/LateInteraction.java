package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A PyLate ColBERT folder: a sentence-transformers Transformer followed by Dense modules that
 * project every token (no Pooling), and PyLate's keys in {@code config_sentence_transformers.json}
 * (each absent one takes PyLate's default, as {@code pylate.models.ColBERT} does).
 *
 * @param queryPrefix the token inserted after a query's first ({@code [Q] }); "" = none
 * @param documentPrefix the token inserted after a document's first ({@code [D] }); "" = none
 * @param queryLength a query's tokens with its prefix, padded to it when expanding (32)
 * @param documentLength the most tokens of a document with its prefix (180)
 * @param queryExpansion {@code do_query_expansion}: queries padded with the mask token (true)
 * @param attendToExpansion {@code attend_to_expansion_tokens}: the padding is attended to
 *     (false; never without expansion)
 * @param skiplistWords tokens whose document vectors are left out (string.punctuation)
 * @param projections the Dense modules' folders, in order
 */
public record LateInteraction(String queryPrefix, String documentPrefix, int queryLength,
    int documentLength, boolean queryExpansion, boolean attendToExpansion,
    List<String> skiplistWords, List<Path> projections) {

  /** The keys PyLate writes; any of them marks a PyLate folder. */
  static final Set<String> KEYS = Set.of("query_prefix", "document_prefix", "query_length",
      "document_length", "attend_to_expansion_tokens", "skiplist_words", "do_query_expansion");
  private static final String PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

  /**
   * How one text is read as a query or a document, with the folder's token ids: the prefix id
   * inserted after the first token, the token count with it, the padding of an expanded query and
   * how much of it is attended to, and the ids whose vectors a document leaves out.
   *
   * @param query a query (else a document)
   * @param prefixId the id inserted after the first token; -1 = none
   * @param prefix its token ("" for none)
   * @param length the most tokens with the prefix; an expanded query is padded to it
   * @param padId the id an expanded query is padded with (the mask token's); -1 = none
   * @param pad its token
   * @param expand the query is padded to {@code length}
   * @param attend the padding is attended to
   * @param skipIds the ids whose vectors a document leaves out, ascending
   */
  public record Input(boolean query, int prefixId, String prefix, int length, int padId,
      String pad, boolean expand, boolean attend, int[] skipIds) implements Serializable {

    /**
     * Whether a token of this id gets a vector: every token of a query, a document's but its
     * skiplist words'.
     */
    public boolean keeps(int id) {
      return query || Arrays.binarySearch(skipIds, id) < 0;
    }

    /** The most tokens the tokenizer gives, before the prefix goes in. */
    public int tokenizerLimit() {
      return prefixId >= 0 ? length - 1 : length;
    }
  }

  /** The folder's PyLate settings, when its config has any of PyLate's keys or Dense types. */
  static Optional<LateInteraction> read(JsonNode config, Path file, List<Path> projections,
      boolean pylateModules) {
    boolean keys = config != null && KEYS.stream().anyMatch(config::has);
    if (!keys && !pylateModules) {
      return Optional.empty();
    }
    JsonNode c = config == null ? MissingNode.getInstance() : config;
    int queryLength = positive(c, "query_length", 32, file);
    int documentLength = positive(c, "document_length", 180, file);
    boolean expansion = c.path("do_query_expansion").asBoolean(true);
    List<String> skiplist = new ArrayList<>();
    if (c.hasNonNull("skiplist_words")) {
      c.get("skiplist_words").forEach(w -> skiplist.add(w.asText()));
    } else {
      PUNCTUATION.chars().forEach(ch -> skiplist.add(String.valueOf((char) ch)));
    }
    return Optional.of(new LateInteraction(text(c, "query_prefix", "[Q] "),
        text(c, "document_prefix", "[D] "), queryLength, documentLength, expansion,
        expansion && c.path("attend_to_expansion_tokens").asBoolean(false), List.copyOf(skiplist),
        List.copyOf(projections)));
  }

  /**
   * How {@code folder} reads a text as a query or a document; {@code length} (0: the folder's
   * query_length or document_length) is the most tokens with the prefix. Refuses a prefix the
   * tokenizer does not have (PyLate would add it with a new, untrained embedding row) and an
   * expanded query without a mask, end or padding token to pad with.
   */
  public Input input(boolean query, int length, ModelFolder folder) {
    JsonNode tokenizer = ModelFolder.json(folder.tokenizer().orElseThrow(() ->
        new WeightsException(folder.folder() + " has no tokenizer.json")));
    String prefix = prefix(query);
    int prefixId = -1;
    if (!prefix.isEmpty()) {
      prefixId = ModelFolder.tokenId(tokenizer, prefix);
      if (prefixId < 0) {
        throw new WeightsException(folder.folder().resolve("tokenizer.json") + " has no token '"
            + prefix + "' (" + (query ? "query" : "document") + "_prefix): PyLate adds it, with "
            + "a new embedding row, when it loads a folder it did not save; save the model with "
            + "PyLate once and use that folder");
      }
    }
    int total = length > 0 ? length : query ? queryLength : documentLength;
    if (total < (prefixId >= 0 ? 2 : 1)) {
      throw new WeightsException("A " + (query ? "query" : "document") + " of " + total
          + " tokens has no room for its prefix and a token of its own");
    }
    int padId = -1;
    String pad = "";
    if (query && queryExpansion) {
      for (String role : List.of("mask_token", "eos_token", "pad_token")) {
        pad = folder.specialToken(role).orElse("");
        padId = pad.isEmpty() ? -1 : ModelFolder.tokenId(tokenizer, pad);
        if (padId >= 0) {
          break;
        }
      }
      if (padId < 0) {
        throw new WeightsException(folder.folder() + ": a query is padded with the mask token "
            + "(else the end or padding token), and the tokenizer names none");
      }
    }
    TreeSet<Integer> skip = new TreeSet<>();
    if (!query) {
      int unk = folder.specialToken("unk_token").map(t -> ModelFolder.tokenId(tokenizer, t))
          .orElse(-1);
      for (String word : skiplistWords) {
        int id = ModelFolder.tokenId(tokenizer, word);   // convert_tokens_to_ids: else [UNK]
        if (id >= 0 || unk >= 0) {
          skip.add(id >= 0 ? id : unk);
        }
      }
    }
    return new Input(query, prefixId, prefix, total, padId, pad, query && queryExpansion,
        query && attendToExpansion, skip.stream().mapToInt(Integer::intValue).toArray());
  }

  /** The prefix of a query or of a document ("" for none). */
  public String prefix(boolean query) {
    return query ? queryPrefix : documentPrefix;
  }

  private static String text(JsonNode c, String key, String otherwise) {
    return c.hasNonNull(key) ? c.get(key).asText() : otherwise;
  }

  private static int positive(JsonNode c, String key, int otherwise, Path file) {
    if (!c.hasNonNull(key)) {
      return otherwise;
    }
    if (!c.get(key).canConvertToInt() || c.get(key).asInt() < 1) {
      throw new WeightsException(file + ": " + key + " = " + c.get(key) + " is not a positive "
          + "whole number");
    }
    return c.get(key).asInt();
  }
}
