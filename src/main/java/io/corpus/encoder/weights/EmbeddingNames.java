package io.corpus.encoder.weights;

import io.corpus.encoder.model.EmbeddingWeights;
import io.corpus.encoder.model.Norm;

/**
 * Where an encoder family keeps its embedding layer, and what the layer holds: a word table;
 * absolute positions as a table, or none; token types as a table, or none; then a LayerNorm,
 * with its shift where the architecture's norms have one (zeros stand in otherwise). A family
 * whose embeddings differ only in these is one row, read here, as its layers are by
 * {@link EncoderLayerNames}; the decoders (words only) read their own.
 *
 * @param word the word table, (V, E)
 * @param positions the absolute positions' table, (P, E) for config.json's P
 * @param types the token types' table, (T, E)
 * @param typesUsed whether the tokenizer's token types reach the model; otherwise every token
 *     is embedded with type 0 (Hugging Face's RoBERTa tokenizers, Jina's XLM-RoBERTa)
 * @param norm the LayerNorm's name, completed by {@code .weight} and {@code .bias}
 */
record EmbeddingNames(String word, Positions positions, TokenTypes types, boolean typesUsed,
    String norm) {

  private static final String P = "embeddings.";
  private static final String WORDS = P + "word_embeddings.weight";
  private static final String LAYER_NORM = P + "LayerNorm";

  /** Hugging Face BERT's ({@code modeling_bert.py}): every table, token types used. */
  static final EmbeddingNames BERT = new EmbeddingNames(WORDS, Positions.TABLE, TokenTypes.TABLE,
      true, LAYER_NORM);
  /** RoBERTa's and XLM-RoBERTa's: BERT's, every token of type 0. */
  static final EmbeddingNames ROBERTA = new EmbeddingNames(WORDS, Positions.TABLE,
      TokenTypes.TABLE, false, LAYER_NORM);
  /** DeBERTa-v2 and v3's: positions only where {@code position_biased_input} adds them. */
  static final EmbeddingNames DEBERTA = new EmbeddingNames(WORDS, Positions.WHEN_ADDED,
      TokenTypes.IF_STORED, true, LAYER_NORM);
  /** DistilBERT's and MPNet's: words and positions, no token types. */
  static final EmbeddingNames DISTILBERT = new EmbeddingNames(WORDS, Positions.TABLE,
      TokenTypes.NONE, false, LAYER_NORM);
  /** GTE's ({@code new-impl}): rotary positions, token types where the checkpoint keeps them. */
  static final EmbeddingNames GTE = new EmbeddingNames(WORDS, Positions.NONE,
      TokenTypes.IF_STORED, true, LAYER_NORM);
  /** JinaBERT's: ALiBi for positions, token types always. */
  static final EmbeddingNames JINA_BERT = new EmbeddingNames(WORDS, Positions.NONE,
      TokenTypes.TABLE, true, LAYER_NORM);
  /** flash-attn's BERT, as NomicBERT's code derives from it: rotary, {@code emb_ln}. */
  static final EmbeddingNames NOMIC = new EmbeddingNames(WORDS, Positions.NONE,
      TokenTypes.IF_STORED, true, "emb_ln");
  /** Jina's XLM-RoBERTa (jina-embeddings-v3): NomicBERT's, every token of type 0. */
  static final EmbeddingNames JINA_XLM_ROBERTA = new EmbeddingNames(WORDS, Positions.NONE,
      TokenTypes.IF_STORED, false, "emb_ln");
  /** ModernBERT's: words only (rotary positions), then its norm. */
  static final EmbeddingNames MODERNBERT = new EmbeddingNames(P + "tok_embeddings.weight",
      Positions.NONE, TokenTypes.NONE, false, P + "norm");

  /**
   * Absolute positions: none (rotary, ALiBi or relative positions), a table of config.json's
   * {@code max_position_embeddings} rows, or that table only when the architecture adds it to
   * the tokens (DeBERTa's {@code position_biased_input}; otherwise passed over).
   */
  enum Positions { NONE, TABLE, WHEN_ADDED }

  /** Token types: none, a table, or a table where the checkpoint keeps one. */
  enum TokenTypes { NONE, TABLE, IF_STORED }

  private static final String POSITIONS = P + "position_embeddings.weight";
  private static final String TYPES = P + "token_type_embeddings.weight";

  /** The folder's embedding layer, read from {@code read}. */
  EmbeddingWeights read(TensorNaming.TensorSource read, ModelFolder model) {
    int e = model.shape().width();
    long vocabulary = Math.max(1, read.rows(word));
    boolean added = positions == Positions.TABLE
        || positions == Positions.WHEN_ADDED && model.architecture().positionTable();
    if (positions == Positions.WHEN_ADDED && !added) {
      read.ignore(POSITIONS);     // DeBERTa-v3's own checkpoints keep it; transformers too
    }
    long stored = read.rows(TYPES);
    long types = switch (this.types) {
      case NONE -> 0;
      case TABLE -> Math.max(1, stored);
      case IF_STORED -> Math.max(0, stored);
    };
    Norm.Affine normed = EncoderLayerNames.norm(read, norm, e,
        model.architecture().norms().shift());
    return new EmbeddingWeights(read.take(word, vocabulary, e),
        added ? positionTable(read, model) : EmbeddingWeights.NO_TABLE,
        types > 0 ? read.take(TYPES, types, e) : EmbeddingWeights.NO_TABLE,
        normed.scale(), normed.shift(), model.positionOffset(), typesUsed && types > 0);
  }

  /** The (P, E) positions, refused naming config.json when P is not its count. */
  private static float[] positionTable(TensorNaming.TensorSource read, ModelFolder model) {
    long rows = read.rows(POSITIONS);
    if (rows >= 0 && rows != model.shape().maxPositions()) {
      throw new WeightsException("Tensor " + POSITIONS + " has " + rows + " rows but "
          + "config.json says max_position_embeddings = " + model.shape().maxPositions() + ": "
          + read.path());
    }
    return read.take(POSITIONS, model.shape().maxPositions(), model.shape().width());
  }
}
