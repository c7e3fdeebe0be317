package io.corpus.encoder.text;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.CharSpan;
import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.common.Sha256;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A model folder's {@code tokenizer.json} run by Hugging Face's own Rust tokenizers library
 * (through DJL, whose jar carries it): the same normalization, pre-tokenization, WordPiece ids and
 * special tokens as the Python {@code tokenizers}. Longer texts are truncated as
 * sentence-transformers does: the text is cut and the closing special token stays, T ≤ maxTokens.
 * Holds native memory: close it, or give it to {@link IdleTokenizers} for the next task; made
 * from the file's bytes (which is how it reaches executors: {@link #fromJson}).
 */
public final class TextTokenizer implements AutoCloseable {
  /**
   * One text, tokenized.
   *
   * @param ids (T) token ids, special tokens included
   * @param typeIds (T) token type (segment) ids
   * @param tokens (T) the token strings, for labels
   * @param truncated whether the text was longer than the limit and was cut
   * @param spans where each token is in the text, when the tokenizer was asked for them; else
   *     null
   */
  public record Tokens(int[] ids, int[] typeIds, String[] tokens, boolean truncated,
      Spans spans) {}

  /**
   * Where a sequence's tokens are in its text, as Hugging Face's {@code offset_mapping} and
   * {@code special_tokens_mask} give them.
   *
   * @param starts (T) where each token starts, in code points (0 for a special token)
   * @param ends (T) where it ends, in code points
   * @param special (T) whether the template added it ([CLS], [SEP], {@code <s>})
   */
  public record Spans(int[] starts, int[] ends, boolean[] special) {
    /**
     * These spans in the text {@code lowered} was lowered from (positions mapped back); special
     * stay 0.
     */
    public Spans unlowered(Lowercase.Lowered lowered) {
      if (lowered.toGiven() == null) {
        return this;
      }
      int[] s = starts.clone();
      int[] e = ends.clone();
      for (int t = 0; t < s.length; t++) {
        if (!special[t]) {
          s[t] = lowered.given(s[t]);
          e[t] = lowered.given(e[t]);
        }
      }
      return new Spans(s, e, special);
    }

    /** These spans in a text that has {@code by} more code points before it; special stay 0. */
    public Spans shifted(int by) {
      if (by == 0) {
        return this;
      }
      int[] s = starts.clone();
      int[] e = ends.clone();
      for (int t = 0; t < s.length; t++) {
        if (!special[t]) {
          s[t] += by;
          e[t] += by;
        }
      }
      return new Spans(s, e, special);
    }
  }

  private final HuggingFaceTokenizer tokenizer;
  private final boolean withSpans;
  // > 0: a text longer than this is tokenized from a prefix first ({@link TextPrefix})
  private final int prefixChars;

  private TextTokenizer(HuggingFaceTokenizer tokenizer, boolean withSpans, int prefixChars) {
    this.tokenizer = tokenizer;
    this.withSpans = withSpans;
    this.prefixChars = prefixChars;
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
    return fromJson(tokenizerJson, maxTokens, overlap, false);
  }

  /** As {@link #fromJson(byte[], int, int)}, its tokens with their {@link Spans} when asked. */
  public static TextTokenizer fromJson(byte[] tokenizerJson, int maxTokens, int overlap,
      boolean withSpans) {
    return fromJson(tokenizerJson, maxTokens, overlap, withSpans,
        overlap < 0 && TextPrefix.safe(tokenizerJson));
  }

  /**
   * As {@link #fromJson(byte[], int, int, boolean)}; {@code fromPrefix}: a long text is
   * tokenized from a prefix when that gives its tokens ({@link TextPrefix}; tests compare).
   */
  static TextTokenizer fromJson(byte[] tokenizerJson, int maxTokens, int overlap,
      boolean withSpans, boolean fromPrefix) {
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
          new ByteArrayInputStream(tokenizerJson), options), withSpans,
          fromPrefix ? (int) Math.min(Integer.MAX_VALUE,
              (long) TextPrefix.CHARS_PER_TOKEN * maxTokens) : 0);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot load the tokenizer", e);
    }
  }

  /**
   * A tokenizer that adds no special token and cuts nothing, as a static embedding reads texts
   * ({@link StaticReading}); a {@code truncation} the file sets still cuts, as the Python
   * tokenizer loaded from it would.
   */
  public static TextTokenizer withoutSpecialTokens(byte[] tokenizerJson) {
    Map<String, String> options = new HashMap<>(Map.of("addSpecialTokens", "false",
        "padding", "false"));
    int fileLimit = fileTruncation(tokenizerJson);
    if (fileLimit > 0) {
      options.putAll(Map.of("truncation", "true", "maxLength", String.valueOf(fileLimit),
          "modelMaxLength", String.valueOf(fileLimit)));
    } else {
      options.put("truncation", "false");
    }
    TokenizerLibrary.prepare();
    try {
      return new TextTokenizer(HuggingFaceTokenizer.newInstance(
          new ByteArrayInputStream(tokenizerJson), options), false, 0);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot load the tokenizer", e);
    }
  }

  /**
   * A tokenizer that adds the special tokens, cuts nothing and gives each token's
   * {@link Spans}: a document whole, for late chunking ({@link LateChunking}).
   */
  public static TextTokenizer whole(byte[] tokenizerJson) {
    TokenizerLibrary.prepare();
    try {
      return new TextTokenizer(HuggingFaceTokenizer.newInstance(
          new ByteArrayInputStream(tokenizerJson), Map.of("addSpecialTokens", "true",
              "truncation", "false", "padding", "false")), true, 0);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot load the tokenizer", e);
    }
  }

  /** The {@code truncation.max_length} a tokenizer.json sets, or 0. */
  private static int fileTruncation(byte[] tokenizerJson) {
    try {
      return TokenizerJson.MAPPER.readTree(tokenizerJson).path("truncation")
          .path("max_length").asInt(0);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the tokenizer", e);
    }
  }

  /**
   * Loads a {@code tokenizer.json} once and checks it against the model, so that a file the
   * library cannot read, ids the embedding table does not have, or an overlap no window can hold
   * fail on the driver, in one line naming {@code where} the file is. Returns its vocabulary.
   */
  public static Vocabulary check(byte[] tokenizerJson, String where, int maxTokens,
      int chunkOverlap, int vocabularySize) {
    Read read = read(tokenizerJson, where, maxTokens);
    int specialTokens = read.specialTokens();
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
    Vocabulary vocabulary = read.vocabulary();
    if (vocabulary.highestId() >= vocabularySize) {
      throw new IllegalArgumentException(where + " has ids up to " + vocabulary.highestId()
          + " (" + vocabulary.size() + " tokens), but the model's embedding table has "
          + vocabularySize + " rows (ids 0.." + (vocabularySize - 1) + "): the tokenizer and "
          + "the weights are not of the same model");
    }
    return vocabulary;
  }

  /**
   * Reads a {@code tokenizer.json} as {@link #check} will, on a thread that has the time (beside
   * the model's load), so that the check finds it read; a file that fails is left to the check
   * to report.
   */
  public static void readAhead(byte[] tokenizerJson, int maxTokens) {
    try {
      read(tokenizerJson, "", maxTokens);
    } catch (RuntimeException e) {
      // the check reads it again and names what failed
    }
  }

  /** What {@link #check} reads of a file: the special tokens a sequence gets, the ids. */
  private record Read(int specialTokens, Vocabulary vocabulary) {}

  /**
   * The last files {@link #check} read, by their SHA-256 and max-tokens, and not their failures:
   * the driver checks a folder's tokenizer before the job and again for the source it plans, and
   * loading Qwen3's 11 MB took 0.7 s each time.
   */
  private static final Map<String, Read> READ = Collections.synchronizedMap(
      new LinkedHashMap<>(8, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Read> eldest) {
          return size() > 4;
        }
      });

  /** Files {@link #read} has loaded in this JVM, kept or not: for tests. */
  private static final AtomicInteger LOADS = new AtomicInteger();

  static int checkLoads() {
    return LOADS.get();
  }

  private static Read read(byte[] tokenizerJson, String where, int maxTokens) {
    String key = Sha256.hex(tokenizerJson) + "/" + maxTokens;
    Read known = READ.get(key);
    if (known != null) {
      return known;
    }
    LOADS.incrementAndGet();
    int specialTokens;
    try (TextTokenizer tokenizer = fromJson(tokenizerJson, maxTokens)) {
      specialTokens = tokenizer.specialTokens();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("Cannot load " + where + " as a Hugging Face "
          + "tokenizer: " + e.getMessage(), e);
    }
    Read read = new Read(specialTokens, vocabulary(tokenizerJson));
    READ.put(key, read);
    return read;
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
      JsonNode root = TokenizerJson.MAPPER.readTree(tokenizerJson);
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

  /**
   * The unknown token's id and whether the model marks continuing sub-words, as a
   * {@code tokenizer.json} gives them: WordPiece's and BPE's {@code unk_token} (looked up in
   * {@code model.vocab} and the added tokens) and {@code continuing_subword_prefix}, Unigram's
   * {@code unk_id}.
   */
  public static Entities.WordRules wordRules(byte[] tokenizerJson) {
    try {
      JsonNode root = TokenizerJson.MAPPER.readTree(tokenizerJson);
      JsonNode model = root.path("model");
      int unknown = -1;
      if (model.path("unk_id").isInt()) {
        unknown = model.path("unk_id").asInt();
      } else if (model.path("unk_token").isTextual()) {
        String token = model.path("unk_token").asText();
        JsonNode id = model.path("vocab").path(token);
        unknown = id.isInt() ? id.asInt() : -1;
        for (JsonNode added : root.path("added_tokens")) {
          if (added.path("content").asText().equals(token)) {
            unknown = added.path("id").asInt();
          }
        }
      }
      return new Entities.WordRules(unknown,
          !model.path("continuing_subword_prefix").asText("").isEmpty());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the tokenizer's model", e);
    }
  }

  public Tokens encode(String text) {
    if (prefixChars > 0) {
      // A prefix that alone overflows the limit truncates to the whole text's tokens.
      for (long length = prefixChars; length < text.length(); length *= 2) {
        int cut = TextPrefix.cut(text, (int) length);
        if (cut < 0) {
          break;
        }
        Encoding prefix = tokenizer.encode(text.substring(0, cut));
        if (prefix.exceedMaxLength()) {
          return tokens(prefix);
        }
      }
    }
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

  private Window window(Encoding encoding) {
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
        encoding.getTokens(), false, withSpans ? spans(special, spans) : null),
        Math.max(start, 0), start < 0 ? 0 : end);
  }

  /** {@code text}'s own tokens, without those the template adds, uncut. */
  public Tokens contentTokens(String text) {
    return tokens(tokenizer.encode(text, false, false));
  }

  /** How many special tokens the template adds to a single text ([CLS] and [SEP]: 2). */
  public int specialTokens() {
    return tokenizer.encode("").getIds().length;
  }

  private Tokens tokens(Encoding encoding) {
    return new Tokens(ints(encoding.getIds()), ints(encoding.getTypeIds()),
        encoding.getTokens(), encoding.exceedMaxLength(), withSpans
            ? spans(encoding.getSpecialTokenMask(), encoding.getCharTokenSpans()) : null);
  }

  private static Spans spans(long[] specialMask, CharSpan[] charSpans) {
    int length = specialMask.length;
    int[] starts = new int[length];
    int[] ends = new int[length];
    boolean[] special = new boolean[length];
    for (int t = 0; t < length; t++) {
      special[t] = specialMask[t] != 0;
      if (charSpans[t] != null) {
        starts[t] = charSpans[t].getStart();
        ends[t] = charSpans[t].getEnd();
      }
    }
    return new Spans(starts, ends, special);
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
