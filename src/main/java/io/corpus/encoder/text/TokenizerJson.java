package io.corpus.encoder.text;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Jackson as a {@code tokenizer.json} needs it: without field-name canonicalization. Its
 * vocabulary is an object of 30,000 to 250,000 distinct names, which Jackson's name table
 * interns one by one; reading MiniLM's took 200 to 270 ms that way and 10 ms without.
 */
final class TokenizerJson {
  static final JsonFactory FACTORY = JsonFactory.builder()
      .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES).build();
  static final ObjectMapper MAPPER = new ObjectMapper(FACTORY);

  private TokenizerJson() {}
}
