package io.corpus.encoder.config;

/** What an input row holds: token vectors, token ids, or text to tokenize. */
public enum InputKind {
  /** array&lt;array&lt;float|double&gt;&gt;: one vector per token, the encoder's input as is. */
  EMBEDDINGS,
  /** array&lt;int&gt;: token ids, run through the model folder's embedding layer. */
  IDS,
  /** string: tokenized with the model folder's tokenizer.json, then embedded. */
  TEXT;

  /** With text input, the output column of token ids (array&lt;int&gt;). */
  public static final String IDS_COLUMN = "input_ids";
  /** With text input, the output column of the tokens' strings (array&lt;string&gt;). */
  public static final String TOKENS_COLUMN = "tokens";
  /** The output column of a text pair's token type ids (0 for the first text, 1 the second). */
  public static final String TYPE_IDS_COLUMN = "token_type_ids";
  /** The output columns of a text cut into windows: which window, and its code-point span. */
  public static final String CHUNK_COLUMN = "chunk";
  public static final String CHUNK_START_COLUMN = "chunk_start";
  public static final String CHUNK_END_COLUMN = "chunk_end";
  /** With entities of texts cut into windows, one row per text: how many windows it took. */
  public static final String CHUNKS_COLUMN = "chunks";
}
