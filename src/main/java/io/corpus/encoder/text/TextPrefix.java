package io.corpus.encoder.text;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Long texts tokenized from a prefix where that cannot change the tokens kept. Hugging Face's
 * tokenizer normalizes, splits and looks up the whole text before it truncates: a 100 KB document
 * costs about 0.1 s for its first 256 tokens, more than the forward pass over them. In a
 * BERT-style pipeline ({@code BertNormalizer} or none, {@code BertPreTokenizer}, {@code WordPiece},
 * no added token with whitespace in it) every token comes from one run of text between
 * whitespace and is normalized character by character, so a prefix that ends where whitespace
 * begins gives the whole text's tokens up to there; when the prefix alone overflows the limit,
 * its truncation is the whole text's, ids, offsets and all.
 */
final class TextPrefix {
  /** The first prefix tried: this many characters a token kept (then twice as many, ...). */
  static final int CHARS_PER_TOKEN = 8;

  private TextPrefix() {}

  /** Whether a {@code tokenizer.json}'s pipeline is one a prefix cannot change (above). */
  static boolean safe(byte[] tokenizerJson) {
    String normalizer = null;
    String preTokenizer = null;
    String model = null;
    boolean truncatesRight = true;
    boolean addedWithSpace = false;
    try (JsonParser json = TokenizerJson.FACTORY.createParser(tokenizerJson)) {
      if (json.nextToken() != JsonToken.START_OBJECT) {
        return false;
      }
      while (json.nextToken() == JsonToken.FIELD_NAME) {
        String field = json.getCurrentName();
        JsonToken value = json.nextToken();
        switch (field) {
          case "normalizer" -> normalizer = value == JsonToken.VALUE_NULL ? ""
              : field(json, "type");
          case "pre_tokenizer" -> preTokenizer = value == JsonToken.VALUE_NULL ? ""
              : field(json, "type");
          case "model" -> model = field(json, "type");
          case "truncation" -> {
            String direction = value == JsonToken.VALUE_NULL ? null : field(json, "direction");
            truncatesRight = direction == null || direction.equals("Right");
          }
          case "added_tokens" -> {
            while (value == JsonToken.START_ARRAY
                && json.nextToken() == JsonToken.START_OBJECT) {
              String content = field(json, "content");
              addedWithSpace |= content != null
                  && content.chars().anyMatch(Character::isWhitespace);
            }
            json.skipChildren();
          }
          default -> json.skipChildren();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the tokenizer's pipeline", e);
    }
    return ("".equals(normalizer) || "BertNormalizer".equals(normalizer))
        && "BertPreTokenizer".equals(preTokenizer) && "WordPiece".equals(model)
        && truncatesRight && !addedWithSpace;
  }

  /**
   * Where to cut {@code text} for a prefix of at least {@code length} characters: the first
   * whitespace at or after it; -1 when there is none.
   */
  static int cut(String text, int length) {
    for (int i = length; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
        return i;
      }
    }
    return -1;
  }

  /**
   * The value of field {@code name} of the object the parser is at, as a string (null when the
   * object has none, or it is not an object); the rest of the object skipped.
   */
  private static String field(JsonParser json, String name) throws IOException {
    if (json.currentToken() != JsonToken.START_OBJECT) {
      json.skipChildren();
      return null;
    }
    String value = null;
    while (json.nextToken() == JsonToken.FIELD_NAME) {
      String field = json.getCurrentName();
      json.nextToken();
      if (field.equals(name) && json.currentToken().isScalarValue()) {
        value = json.getValueAsString();
      } else {
        json.skipChildren();
      }
    }
    return value;
  }
}
