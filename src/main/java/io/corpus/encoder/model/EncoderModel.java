package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Precision;
import java.io.Serializable;
import java.util.List;

/**
 * What the tasks compute with: the encoder layers and, for token-id and text inputs, the
 * embedding layer in front of them. Immutable once loaded; broadcast to executors as is.
 *
 * @param embeddings the embedding layer (ids to the first layer's input), or null when the input
 *     is already embedded
 * @param encoder the encoder layers
 * @param head a sequence-classification head on the first token's final state, or null
 * @param tokenHead a token-classification head on every token's final state, or null
 * @param splade SPLADE's masked-LM head and pooling, or null
 * @param dense the sentence-transformers Dense modules applied to the pooled vector, in order
 * @param lexical bge-m3's lexical weights, or null
 * @param multiVector ColBERT's projection of every token, or null
 * @param latent NV-Embed's latent-attention block, applied to the tokens that are pooled, or
 *     null
 */
public record EncoderModel(EmbeddingWeights embeddings, EncoderWeights encoder,
    ClassifierHead head, TokenClassifierHead tokenHead, SpladeHead splade,
    List<DenseLayer> dense, LexicalHead lexical, MultiVectorHead multiVector,
    LatentAttention latent) implements Serializable {

  /** Without Dense modules or a token head. */
  public EncoderModel(EmbeddingWeights embeddings, EncoderWeights encoder, ClassifierHead head) {
    this(embeddings, encoder, head, null, null, List.of(), null, null, null);
  }

  /**
   * This model with its encoder's and SPLADE head's weight products in {@code precision} (the
   * Dense modules and the classifier heads, small products, stay float32; the embedding table
   * too, but where it holds only bfloat16 values: {@link EmbeddingWeights#in}).
   */
  public EncoderModel in(Precision precision) {
    return new EncoderModel(embeddings == null ? null : embeddings.in(precision),
        encoder.in(precision), head, tokenHead,
        splade == null ? null : splade.in(precision), dense, lexical, multiVector, latent);
  }

  /** The precision of the encoder's weight products. */
  public Precision precision() {
    return encoder.layers().isEmpty() ? Precision.FLOAT32
        : encoder.layers().get(0).inProjWeight().precision();
  }

  /** E: the width of every token's state. */
  public int width() {
    return width(encoder, embeddings);
  }

  /** The width of the pooled vector after the Dense modules: E without any. */
  public int pooledWidth() {
    return dense.isEmpty() ? width() : dense.get(dense.size() - 1).outWidth();
  }

  public EncoderModel {
    if (encoder == null) {
      throw new IllegalArgumentException("An encoder model needs its encoder weights");
    }
    if (encoder.layers().isEmpty() && embeddings == null) {
      throw new IllegalArgumentException("A model without encoder layers needs its embeddings");
    }
    dense = List.copyOf(dense);
    int width = width(encoder, embeddings);
    for (DenseLayer d : dense) {
      if (d.inWidth() != width) {
        throw new IllegalArgumentException("A Dense module reads " + d.inWidth() + " values "
            + "where the pooled vector has " + width);
      }
      width = d.outWidth();
    }
    if (embeddings != null && embeddings.width() != width(encoder, embeddings)) {
      throw new IllegalArgumentException("The embedding layer's width " + embeddings.width()
          + " differs from the encoder's " + encoder.width());
    }
  }

  private static int width(EncoderWeights encoder, EmbeddingWeights embeddings) {
    return encoder.layers().isEmpty() ? embeddings.width() : encoder.width();
  }

  /** An encoder with its embedding layer and no head. */
  public EncoderModel(EmbeddingWeights embeddings, EncoderWeights encoder) {
    this(embeddings, encoder, null);
  }

  /** An encoder over already-embedded inputs. */
  public static EncoderModel layersOnly(EncoderWeights encoder) {
    return new EncoderModel(null, encoder, null);
  }

  /**
   * Bytes the model takes as held: each matrix in its precision, the rest in float32
   * ({@link Parameters#bytes}; a reduced SPLADE decoder is a copy beside the tied table).
   */
  public long bytes() {
    return Parameters.bytes(this);
  }

  /** Number of float parameters, for logs and memory estimates ({@link Parameters#count}). */
  public long parameterCount() {
    return Parameters.count(this);
  }
}
