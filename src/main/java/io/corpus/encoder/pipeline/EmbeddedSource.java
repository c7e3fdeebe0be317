package io.corpus.encoder.pipeline;

import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.TokenEmbeddings;

/**
 * A source whose tokens are ids that go through the model's embedding layer (token ids, or text
 * once tokenized): it has a token limit, and a rule for longer rows (cut, or reject).
 */
abstract class EmbeddedSource extends SequenceSource {
  protected final int maxTokens;
  protected final boolean rejectTooLong;
  private final double layerNormEps;

  EmbeddedSource(InputColumns columns, int maxTokens, boolean rejectTooLong,
      double layerNormEps) {
    super(columns);
    this.maxTokens = maxTokens;
    this.rejectTooLong = rejectTooLong;
    this.layerNormEps = layerNormEps;
  }

  /** The model's embedding layer, for one task. */
  final TokenEmbeddings embeddingLayer(EncoderModel model) {
    return new TokenEmbeddings(model.embeddings(), layerNormEps);
  }
}
