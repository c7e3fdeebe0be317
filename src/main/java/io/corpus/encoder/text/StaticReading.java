package io.corpus.encoder.text;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a folder of static embeddings (no transformer after the lookup) reads a text. Both
 * sentence-transformers' {@code StaticEmbedding.tokenize} and model2vec's
 * {@code StaticModel.tokenize} take the ids of the text as given (not stripped), without special
 * tokens and with no cut of their own; model2vec's then also cuts the text to
 * {@code max_length} × the vocabulary's median token length in code points before tokenizing,
 * drops the tokenizer model's unknown token, and keeps the first {@code max_length} ids
 * ({@code encode}'s default 512).
 *
 * @param charLimit the text is cut to this many code points before tokenizing; 0: not cut
 * @param unknownId ids equal to this are dropped; -1: none are
 * @param idLimit the first this many ids are kept after that; 0: all of them
 */
public record StaticReading(int charLimit, int unknownId, int idLimit) implements Serializable {
  /** sentence-transformers' StaticEmbedding: the ids as the tokenizer gives them. */
  public static final StaticReading AS_TOKENIZED = new StaticReading(0, -1, 0);

  /** model2vec's {@code encode} default: at most 512 ids. */
  public static final int MODEL2VEC_MAX_LENGTH = 512;

  /**
   * model2vec's reading of a folder whose {@code tokenizer.json} is {@code tokenizerJson}: the
   * text cut to 512 × the median length of its vocabulary's tokens (every token of
   * {@code get_vocab()}, added ones too, its length in code points as Python's {@code len},
   * the median truncated to an integer as {@code int(np.median(…))}), the model's
   * {@code unk_token} dropped (WordPiece, BPE and WordLevel name one; Unigram's {@code unk_id}
   * is not a token model2vec looks for, so a Unigram [UNK] is kept), 512 ids kept.
   */
  public static StaticReading model2vec(byte[] tokenizerJson) {
    try {
      JsonNode root = TokenizerJson.MAPPER.readTree(tokenizerJson);
      Map<String, Integer> vocabulary = vocabulary(root);
      List<Integer> lengths = new ArrayList<>();
      vocabulary.keySet().forEach(t -> lengths.add(t.codePointCount(0, t.length())));
      Collections.sort(lengths);
      int n = lengths.size();
      if (n == 0) {
        throw new IllegalArgumentException("the tokenizer has no vocabulary");
      }
      double median = n % 2 == 1 ? lengths.get(n / 2)
          : (lengths.get(n / 2 - 1) + lengths.get(n / 2)) / 2.0;
      JsonNode unk = root.path("model").path("unk_token");
      int unknown = unk.isTextual() ? vocabulary.getOrDefault(unk.asText(), -1) : -1;
      return new StaticReading(MODEL2VEC_MAX_LENGTH * (int) median, unknown,
          MODEL2VEC_MAX_LENGTH);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the tokenizer's vocabulary", e);
    }
  }

  /** Python's {@code get_vocab()}: the model's tokens, then the added ones, token → id. */
  private static Map<String, Integer> vocabulary(JsonNode root) {
    Map<String, Integer> ids = new LinkedHashMap<>();
    JsonNode vocab = root.path("model").path("vocab");
    if (vocab.isArray()) {
      for (int i = 0; i < vocab.size(); i++) {
        ids.put(vocab.get(i).path(0).asText(), i);
      }
    } else {
      vocab.fields().forEachRemaining(e -> ids.put(e.getKey(), e.getValue().asInt()));
    }
    root.path("added_tokens").forEach(t -> ids.put(t.path("content").asText(),
        t.path("id").asInt()));
    return ids;
  }

  /** These rules for a run summary: each limit, or null where there is none. */
  public java.util.Map<String, Object> described() {
    java.util.Map<String, Object> d = new java.util.LinkedHashMap<>();
    d.put("text_code_points", charLimit > 0 ? charLimit : null);
    d.put("dropped_id", unknownId >= 0 ? unknownId : null);
    d.put("ids", idLimit > 0 ? idLimit : null);
    return d;
  }

  /** The text as the tokenizer gets it: its first {@link #charLimit} code points. */
  public String cut(String text) {
    if (charLimit <= 0 || text.length() <= charLimit
        || text.codePointCount(0, text.length()) <= charLimit) {
      return text;
    }
    return text.substring(0, text.offsetByCodePoints(0, charLimit));
  }

  /**
   * The tokens kept: the unknown token's left out, then the first {@link #idLimit}; truncated
   * when the text or its ids were cut ({@code textCut}: the text was).
   */
  public TextTokenizer.Tokens kept(TextTokenizer.Tokens tokens, boolean textCut) {
    int[] ids = tokens.ids();
    int n = 0;
    int[] keep = new int[ids.length];
    for (int t = 0; t < ids.length; t++) {
      if (ids[t] != unknownId) {
        keep[n++] = t;
      }
    }
    int kept = idLimit > 0 ? Math.min(n, idLimit) : n;
    if (kept == ids.length && !textCut) {
      return tokens;
    }
    int[] keptIds = new int[kept];
    int[] types = new int[kept];
    String[] pieces = new String[kept];
    for (int i = 0; i < kept; i++) {
      keptIds[i] = ids[keep[i]];
      types[i] = tokens.typeIds()[keep[i]];
      pieces[i] = tokens.tokens()[keep[i]];
    }
    return new TextTokenizer.Tokens(keptIds, types, pieces, textCut || kept < n, null);
  }
}
