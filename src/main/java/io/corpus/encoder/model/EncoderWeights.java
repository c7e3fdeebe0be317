package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Precision;
import java.io.Serializable;
import java.util.List;

/**
 * All parameters of an encoder stack; immutable once loaded, broadcast to executors as is.
 *
 * @param layers the L layers, in order (none: {@link #NONE})
 * @param finalNorm (E) the norm after the last layer, or none
 * @param positionTable (P, E) learned positions; empty where the model has none
 * @param scoreBiasTable a table every layer's score bias reads (MPNet's (buckets, H)
 *     {@code relative_attention_bias}); empty where the model has none
 */
public record EncoderWeights(
    List<LayerWeights> layers,
    Norm finalNorm,
    float[] positionTable,
    float[] scoreBiasTable) implements Serializable {

  /** Without tables of positions or score biases. */
  public EncoderWeights(List<LayerWeights> layers, Norm finalNorm) {
    this(layers, finalNorm, new float[0], new float[0]);
  }

  /**
   * No layer at all: a static embedding's, whose pooled vector is the mean of its token rows as
   * they are looked up.
   */
  public static final EncoderWeights NONE = new EncoderWeights(List.of(), Norm.none());

  public EncoderWeights {
    layers = List.copyOf(layers);
  }

  /** These weights with every layer's matrices in {@code precision}. */
  public EncoderWeights in(Precision precision) {
    return new EncoderWeights(layers.stream().map(l -> l.in(precision)).toList(), finalNorm,
        positionTable, scoreBiasTable);
  }

  /** The precision of the layers' products; float32 without layers. */
  public Precision precision() {
    return layers.isEmpty() ? Precision.FLOAT32 : layers.get(0).inProjWeight().precision();
  }

  /** Bytes the weights take ({@link Parameters#bytes}). */
  public long bytes() {
    return Parameters.bytes(this);
  }

  /** E; 0 without layers. */
  public int width() {
    return layers.isEmpty() ? 0 : layers.get(0).width();
  }

  /** F; 0 without layers. */
  public int ffnWidth() {
    return layers.isEmpty() ? 0 : layers.get(0).ffnWidth();
  }

  /** L. */
  public int layerCount() {
    return layers.size();
  }

  /** P, the longest sequence the learned position table covers; 0 without a table. */
  public int maxPositions() {
    return positionTable.length == 0 ? 0 : positionTable.length / width();
  }
}
