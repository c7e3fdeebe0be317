package io.corpus.encoder.weights;

import io.corpus.encoder.model.EmbeddingWeights;
import io.corpus.encoder.model.LayerWeights;

/**
 * An encoder family read through its name tables: its embedding layer by {@link EmbeddingNames},
 * layer i by {@link EncoderLayerNames} after its names' layer prefix and i. A family overrides a
 * reading only where it computes differently (DeBERTa's relative positions, NomicBERT's
 * experts).
 */
abstract class NamedEncoder extends NamedFamily {
  private final EmbeddingNames embeddings;
  private final EncoderLayerNames layers;

  NamedEncoder(Names names, EmbeddingNames embeddings, EncoderLayerNames layers) {
    super(names);
    this.embeddings = embeddings;
    this.layers = layers;
  }

  @Override
  public EmbeddingWeights embeddings(TensorNaming.TensorSource read, ModelFolder model) {
    return embeddings.read(read, model);
  }

  @Override
  public LayerWeights layer(TensorNaming.TensorSource read, int i, ModelFolder model) {
    return layers.read(read, layerPrefix(i), model);
  }

  /** The table of the layers' tensor names. */
  final EncoderLayerNames layerNames() {
    return layers;
  }
}
