package io.corpus.encoder.weights;

import io.corpus.encoder.model.LayerWeights;

/**
 * Where a BERT-shaped layer keeps its tensors, after its prefix ({@code encoder.layer.i.}): a
 * separate query, key and value, an output projection, a plain feed-forward, and a norm after
 * each block, every one with a {@code .weight} and a {@code .bias}. The families whose layers
 * are BERT's under other names are one row each; the layer is read once, here.
 *
 * @param query the query projection, (E, E)
 * @param key the key projection, (E, E)
 * @param value the value projection, (E, E)
 * @param out the attention's output projection, (E, E)
 * @param attentionNorm the norm after attention, (E)
 * @param ffnIn the feed-forward's first layer, (F, E)
 * @param ffnOut its second, (E, F)
 * @param outputNorm the norm after the feed-forward, (E)
 */
record BertLayerNames(String query, String key, String value, String out, String attentionNorm,
    String ffnIn, String ffnOut, String outputNorm) {
  /** Hugging Face BERT's ({@code modeling_bert.py}), RoBERTa's and their kin's. */
  static final BertLayerNames BERT = new BertLayerNames("attention.self.query",
      "attention.self.key", "attention.self.value", "attention.output.dense",
      "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm");
  /** DistilBERT's ({@code modeling_distilbert.py}). */
  static final BertLayerNames DISTILBERT = new BertLayerNames("attention.q_lin",
      "attention.k_lin", "attention.v_lin", "attention.out_lin", "sa_layer_norm", "ffn.lin1",
      "ffn.lin2", "output_layer_norm");
  /** MPNet's ({@code modeling_mpnet.py}). */
  static final BertLayerNames MPNET = new BertLayerNames("attention.attn.q", "attention.attn.k",
      "attention.attn.v", "attention.attn.o", "attention.LayerNorm", "intermediate.dense",
      "output.dense", "output.LayerNorm");

  /**
   * The layer under {@code prefix}: q, k and v stacked into one (3E, E) input projection, rows
   * q then k then v, as PyTorch fuses them.
   */
  LayerWeights read(TensorNaming.TensorSource source, String prefix, int e, int f) {
    String p = prefix;
    return LayerWeights.builder(e, f)
        .attention(TensorNaming.concat(source.take(p + query + ".weight", e, e),
                source.take(p + key + ".weight", e, e), source.take(p + value + ".weight", e, e)),
            source.take(p + out + ".weight", e, e))
        .attentionBiases(TensorNaming.concat(source.take(p + query + ".bias", e),
                source.take(p + key + ".bias", e), source.take(p + value + ".bias", e)),
            source.take(p + out + ".bias", e))
        .feedForward(source.take(p + ffnIn + ".weight", f, e),
            source.take(p + ffnOut + ".weight", e, f))
        .feedForwardBiases(source.take(p + ffnIn + ".bias", f),
            source.take(p + ffnOut + ".bias", e))
        .norms(source.take(p + attentionNorm + ".weight", e),
            source.take(p + attentionNorm + ".bias", e),
            source.take(p + outputNorm + ".weight", e), source.take(p + outputNorm + ".bias", e))
        .build();
  }
}
