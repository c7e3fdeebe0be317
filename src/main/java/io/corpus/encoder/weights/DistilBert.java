package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.ClassifierHead;
import java.nio.file.Path;
import java.util.List;

/**
 * DistilBERT, as {@code modeling_distilbert.py} computes it: config.json names its sizes
 * {@code n_layers}, {@code dim}, {@code n_heads}, {@code hidden_dim}; word and position embeddings
 * (positions from row 0, sinusoidal or learned alike: the table is in the checkpoint), no token
 * types, normalized with eps 1e-12 as every norm; BERT's post-norm layers under
 * {@code transformer.layer.i.} ({@code attention.q_lin}, {@code k_lin}, {@code v_lin},
 * {@code out_lin}, {@code sa_layer_norm}, {@code ffn.lin1}, {@code ffn.lin2},
 * {@code output_layer_norm}). Task checkpoints put the encoder under {@code distilbert.};
 * {@code DistilBertForSequenceClassification}'s head is {@code pre_classifier} + ReLU on the first
 * token, then {@code classifier}.
 */
final class DistilBert extends NamedEncoder {
  private static final double EPS = 1e-12;     // nn.LayerNorm(eps=1e-12) throughout
  private static final String LAYERS = "transformer.layer.";

  DistilBert() {
    super(new Names("distilbert", List.of("distilbert"),
        "distilbert-base, msmarco-distilbert, distilbert-sst-2", "distilbert.", LAYERS,
        List.of("embeddings.", "transformer."))
        .withHeads(HeadTensors.classifier("pre_classifier.weight", "pre_classifier.bias",
            "classifier.weight", "classifier.bias").withMlm("vocab_transform.weight",
            "vocab_transform.bias", "vocab_layer_norm.weight", "vocab_layer_norm.bias",
            "vocab_projector.weight", "vocab_projector.bias")),
        EmbeddingNames.DISTILBERT, EncoderLayerNames.DISTILBERT);
  }

  @Override
  public Shape shape(JsonNode config, Path file) {
    return new Shape(ModelFamily.positiveInt(config, "n_layers", file),
        ModelFamily.positiveInt(config, "dim", file), ModelFamily.positiveInt(config, "n_heads",
        file), ModelFamily.positiveInt(config, "hidden_dim", file),
        ModelFamily.positiveInt(config, "max_position_embeddings", file));
  }

  @Override
  public Architecture architecture(JsonNode config, Path file) {
    return Architecture.encoder(ModelFamily.activation(config, "activation", file), EPS).build();
  }

  @Override
  public HeadShape headShape(JsonNode config, Path file) {
    return new HeadShape(ClassifierHead.Read.FIRST, ClassifierHead.DenseActivation.RELU, true,
        -1);
  }
}
