package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Precision;
import java.io.Serializable;

/**
 * What a model computes from its final token states besides the pooled vector: a sequence
 * classifier's logits, a token classifier's labels, SPLADE's or bge-m3's sparse vector,
 * ColBERT's vectors. A model holds at most one of each kind ({@link EncoderModel#heads}).
 */
public sealed interface Head extends Serializable
    permits ClassifierHead, TokenClassifierHead, SpladeHead, LexicalHead, MultiVectorHead {

  /**
   * This head with its products in {@code precision}: most heads are small products and stay
   * float32.
   */
  default Head in(Precision precision) {
    return this;
  }
}
