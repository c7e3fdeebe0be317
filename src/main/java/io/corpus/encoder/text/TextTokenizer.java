package io.corpus.encoder.text;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
    Map<String, String> options = Map.of(
        "addSpecialTokens", "true",
        "truncation", "true",
        "maxLength", String.valueOf(maxTokens),
        "padding", "false");
    try {
      return new TextTokenizer(HuggingFaceTokenizer.newInstance(
          new ByteArrayInputStream(tokenizerJson), options));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot load the tokenizer", e);
    }
  }

  public Tokens encode(String text) {
    Encoding encoding = tokenizer.encode(text);
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
