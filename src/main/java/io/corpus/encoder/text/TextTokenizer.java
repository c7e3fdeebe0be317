package io.corpus.encoder.text;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.CharSpan;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A model folder's {@code tokenizer.json} run by Hugging Face's own Rust tokenizers library
 * (through DJL, whose jar carries it): the same normalization, pre-tokenization, WordPiece ids and
 * special tokens as the Python {@code tokenizers}. Longer texts are truncated as
 * sentence-transformers does: the text is cut and the closing special token stays, T ≤ maxTokens.
 * Holds native memory: close it; make one per task, from the file's bytes (which is how it
 * reaches executors: {@link #fromJson}).
 */
public final class TextTokenizer implements AutoCloseable {
  /**
   * One text, tokenized.
   *
   * @param ids (T) token ids, special tokens included
   * @param typeIds (T) token type (segment) ids
   * @param tokens (T) the token strings, for labels
   * @param truncated whether the text was longer than the limit and was cut
   */
  public record Tokens(int[] ids, int[] typeIds, String[] tokens, boolean truncated) {}

  private final HuggingFaceTokenizer tokenizer;

  private TextTokenizer(HuggingFaceTokenizer tokenizer) {
    this.tokenizer = tokenizer;
  }

  /** Loads {@code tokenizer.json}; texts are cut to {@code maxTokens} tokens. */
  public static TextTokenizer open(Path tokenizerJson, int maxTokens) {
    try {
      return fromJson(Files.readAllBytes(tokenizerJson), maxTokens);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the tokenizer " + tokenizerJson, e);
    }
  }

  /** A tokenizer from the contents of a {@code tokenizer.json}; texts are cut to maxTokens. */
  public static TextTokenizer fromJson(byte[] tokenizerJson, int maxTokens) {
    return fromJson(tokenizerJson, maxTokens, -1);
  }

  /**
   * A tokenizer whose {@link #windows} cut a longer text into windows of {@code maxTokens}
   * (special tokens included), each next one repeating {@code overlap} tokens of the one before;
   * {@code overlap} -1: no windows, texts are cut.
   */
  public static TextTokenizer fromJson(byte[] tokenizerJson, int maxTokens, int overlap) {
    Map<String, String> options = new HashMap<>(Map.of(
        "addSpecialTokens", "true",
        "truncation", "true",
        "maxLength", String.valueOf(maxTokens),
        // The library caps maxLength at this, 512 unless told: 8,192-token models need it raised.
        "modelMaxLength", String.valueOf(maxTokens),
        "padding", "false"));
    if (overlap >= 0) {
      options.put("stride", String.valueOf(overlap));
      options.put("withOverflowingTokens", "true");
    }
    TokenizerLibrary.prepare();
    try {
      return new TextTokenizer(HuggingFaceTokenizer.newInstance(
          new ByteArrayInputStream(tokenizerJson), options));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot load the tokenizer", e);
    }
  }

  /**
   * Loads a {@code tokenizer.json} once and checks it against the model, so that a file the
   * library cannot read, ids the embedding table does not have, or an overlap no window can hold
   * fail on the driver, in one line naming {@code where} the file is. Returns its vocabulary.
   */
  public static Vocabulary check(byte[] tokenizerJson, String where, int maxTokens,
      int chunkOverlap, int vocabularySize) {
    int specialTokens;
    try (TextTokenizer tokenizer = fromJson(tokenizerJson, maxTokens)) {
      specialTokens = tokenizer.specialTokens();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("Cannot load " + where + " as a Hugging Face "
          + "tokenizer: " + e.getMessage(), e);
    }
    if (maxTokens <= specialTokens) {
      throw new IllegalArgumentException("max-tokens = " + maxTokens + " leaves no room for "
          + "text: " + where + " adds " + specialTokens + " special tokens to every sequence, so "
          + "set at least " + (specialTokens + 1));
    }
    if (chunkOverlap >= 0 && chunkOverlap >= maxTokens - specialTokens) {
      throw new IllegalArgumentException("The chunk overlap " + chunkOverlap + " must be smaller "
          + "than a window's " + (maxTokens - specialTokens) + " content tokens (" + maxTokens
          + " tokens less " + specialTokens + " special ones)");
    }
    Vocabulary vocabulary = vocabulary(tokenizerJson);
    if (vocabulary.highestId() >= vocabularySize) {
      throw new IllegalArgumentException(where + " has ids up to " + vocabulary.highestId()
          + " (" + vocabulary.size() + " tokens), but the model's embedding table has "
          + vocabularySize + " rows (ids 0.." + (vocabularySize - 1) + "): the tokenizer and "
          + "the weights are not of the same model");
    }
    return vocabulary;
  }

  /**
   * What ids a tokenizer.json can give: its model's vocabulary and its added tokens.
   *
   * @param size how many distinct ids
   * @param highestId the largest id (-1 when there is none)
   */
  public record Vocabulary(int size, int highestId) {}

  /**
   * The ids in a {@code tokenizer.json}: WordPiece and BPE list {@code token: id} under
   * {@code model.vocab}, Unigram lists {@code [piece, score]} pairs whose id is their place;
   * {@code added_tokens} carry their own ids. Read without loading the tokenizer.
   */
  public static Vocabulary vocabulary(byte[] tokenizerJson) {
    try {
      JsonNode root = new ObjectMapper().readTree(tokenizerJson);
      java.util.Set<Integer> ids = new java.util.HashSet<>();
      JsonNode vocab = root.path("model").path("vocab");
      if (vocab.isArray()) {
        for (int i = 0; i < vocab.size(); i++) {
          ids.add(i);
        }
      } else {
        vocab.elements().forEachRemaining(id -> ids.add(id.asInt()));
      }
      root.path("added_tokens").forEach(token -> ids.add(token.path("id").asInt()));
      int highest = ids.stream().mapToInt(Integer::intValue).max().orElse(-1);
      return new Vocabulary(ids.size(), highest);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the tokenizer's vocabulary", e);
    }
  }

  public Tokens encode(String text) {
    return tokens(tokenizer.encode(text));
  }

  /**
   * A pair of texts as Hugging Face's tokenizer encodes {@code (text, text_pair)}: the folder's
   * pair template ({@code [CLS] a [SEP] b [SEP]}, types 0 then 1, for BERT), and a pair longer
   * than the limit cut longest-first.
   */
  public Tokens encode(String text, String pair) {
    return tokens(tokenizer.encode(text, pair));
  }

  /**
   * One window of a text.
   *
   * @param tokens its ids, type ids and token strings, special tokens included
   * @param start where its first content token starts in the text, in code points
   * @param end where its last content token ends, in code points (start = end: no content)
   */
  public record Window(Tokens tokens, int start, int end) {}

  /**
   * The text as Hugging Face's tokenizer cuts it with {@code return_overflowing_tokens} and the
   * stride this tokenizer was made with: the first window, then the overflowing ones in order.
   */
  public List<Window> windows(String text) {
    Encoding first = tokenizer.encode(text);
    List<Window> windows = new ArrayList<>();
    windows.add(window(first));
    for (Encoding next : first.getOverflowing()) {
      windows.add(window(next));
    }
    return windows;
  }

  private static Window window(Encoding encoding) {
    long[] special = encoding.getSpecialTokenMask();
    CharSpan[] spans = encoding.getCharTokenSpans();
    int start = -1;
    int end = 0;
    for (int t = 0; t < special.length; t++) {
      if (special[t] == 0 && spans[t] != null) {
        start = start < 0 ? spans[t].getStart() : start;
        end = spans[t].getEnd();
      }
    }
    return new Window(new Tokens(ints(encoding.getIds()), ints(encoding.getTypeIds()),
        encoding.getTokens(), false), Math.max(start, 0), start < 0 ? 0 : end);
  }

  /** How many special tokens the template adds to a single text ([CLS] and [SEP]: 2). */
  public int specialTokens() {
    return tokenizer.encode("").getIds().length;
  }

  private static Tokens tokens(Encoding encoding) {
    return new Tokens(ints(encoding.getIds()), ints(encoding.getTypeIds()),
        encoding.getTokens(), encoding.exceedMaxLength());
  }

  private static int[] ints(long[] values) {
    int[] out = new int[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = Math.toIntExact(values[i]);
    }
    return out;
  }

  @Override
  public void close() {
    tokenizer.close();
  }
}
