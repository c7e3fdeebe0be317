package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Precision;
import java.io.Serializable;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What the tasks compute with: the encoder layers and, for token-id and text inputs, the
 * embedding layer in front of them; the heads on their final states, and the steps from them to
 * the pooled vector. Immutable once loaded; broadcast to executors as is.
 *
 * @param embeddings the embedding layer (ids to the first layer's input), or null when the input
 *     is already embedded
 * @param encoder the encoder layers
 * @param heads what the model computes from the final states besides the pooled vector, at most
 *     one of each kind ({@link #head})
 * @param dense the sentence-transformers Dense modules applied to the pooled vector, in order
 * @param beforePooling what the tokens that are pooled go through first (NV-Embed's latent
 *     attention), or {@link BeforePooling#NOTHING}
 */
public record EncoderModel(EmbeddingWeights embeddings, EncoderWeights encoder,
    List<Head> heads, List<DenseLayer> dense, BeforePooling beforePooling)
    implements Serializable {

  /** With {@code heads} and nothing between the final states and the pooled vector. */
  public EncoderModel(EmbeddingWeights embeddings, EncoderWeights encoder, Head... heads) {
    this(embeddings, encoder, List.of(heads), List.of(), BeforePooling.NOTHING);
  }

  /**
   * This model with its encoder's and heads' weight products in {@code precision} (the Dense
   * modules and the classifier heads, small products, stay float32; the embedding table too,
   * but where it holds only bfloat16 values: {@link EmbeddingWeights#in}).
   */
  public EncoderModel in(Precision precision) {
    return new EncoderModel(embeddings == null ? null : embeddings.in(precision),
        encoder.in(precision), heads.stream().map(h -> h.in(precision)).toList(), dense,
        beforePooling);
  }

  /** The model's head of this kind, if it has one. */
  public <H extends Head> Optional<H> head(Class<H> kind) {
    for (Head h : heads) {
      if (kind.isInstance(h)) {
        return Optional.of(kind.cast(h));
      }
    }
    return Optional.empty();
  }

  /** The precision of the encoder's weight products. */
  public Precision precision() {
    return encoder.precision();
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
    if (encoder.layers().isEmpty() && embeddings == null) {
      throw new IllegalArgumentException("A model without encoder layers needs its embeddings");
    }
    heads = List.copyOf(heads);
    Set<Class<?>> kinds = new HashSet<>();
    for (Head h : heads) {
      if (!kinds.add(h.getClass())) {
        throw new IllegalArgumentException("A model has at most one " + h.getClass()
            .getSimpleName() + ", got two");
      }
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

  /** An encoder over already-embedded inputs. */
  public static EncoderModel layersOnly(EncoderWeights encoder) {
    return new EncoderModel(null, encoder);
  }

  /**
   * Bytes the model takes as held: each matrix in its precision, the rest in float32
   * ({@link Parameters#bytes}; a reduced SPLADE decoder is a copy beside the tied table).
   */
  public long bytes() {
    return Parameters.bytes(this);
  }

  /**
   * The values the model holds ({@link Parameters#count}), the zeros that stand in for a bias
   * or a shift its architecture lacks among them: what it takes in float32, for memory. Its
   * parameters are its checkpoint's ({@code WeightsMemory.parameters}).
   */
  public long heldValues() {
    return Parameters.count(this);
  }
}
