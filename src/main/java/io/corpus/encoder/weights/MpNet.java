package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.ScoreBias;
import java.nio.file.Path;
import java.util.List;

/**
 * MPNet (all-mpnet-base-v2, multi-qa-mpnet), as {@code modeling_mpnet.py} computes it: word and
 * position embeddings (positions from {@code pad_token_id + 1}, as RoBERTa's; no token types)
 * summed and normalized; BERT's post-norm layers under other names ({@code attention.attn.q},
 * {@code .k}, {@code .v}, {@code .o}, {@code attention.LayerNorm}); and one table,
 * {@code encoder.relative_attention_bias} (buckets, H), whose row at the bucket of key − query
 * (T5's bidirectional buckets up to distance 128) every layer adds to its scores. Task
 * checkpoints put the encoder under {@code mpnet.}; {@code MPNetForSequenceClassification}'s head
 * is RoBERTa's ({@code classifier.dense} + tanh on {@code <s>}, {@code classifier.out_proj}).
 */
final class MpNet extends NamedEncoder {
  /** The distance at which MPNet's log-spaced buckets end (not in config.json). */
  private static final int MAX_DISTANCE = 128;
  private static final String LAYERS = "encoder.layer.";
  private static final String BIAS_TABLE = "encoder.relative_attention_bias.weight";

  MpNet() {
    super(new Names("mpnet", List.of("mpnet"),
        "all-mpnet-base-v2, multi-qa-mpnet", "mpnet.", LAYERS, List.of("embeddings.", "encoder."))
        .withHeads(HeadTensors.classifier("classifier.dense.weight", "classifier.dense.bias",
            "classifier.out_proj.weight", "classifier.out_proj.bias")),
        EmbeddingNames.DISTILBERT, EncoderLayerNames.MPNET);
  }

  @Override
  public Architecture architecture(JsonNode config, Path file) {
    int buckets = ModelFamily.positiveInt(config, "relative_attention_num_buckets", 32, file);
    if (buckets < 4 || buckets % 2 != 0) {
      throw new WeightsException(file + ": relative_attention_num_buckets = " + buckets
          + ", expected an even number of at least 4");
    }
    return Architecture.encoder(ModelFamily.activation(config, "hidden_act", file),
            ModelFamily.positiveNumber(config, "layer_norm_eps", 1e-12, file))
        .scoreBias(ScoreBias.relativeBuckets(buckets, MAX_DISTANCE)).build();
  }

  @Override
  public int positionOffset(JsonNode config, Path file) {
    return Roberta.afterPadding(config, file);
  }

  @Override
  public float[] scoreBiasTable(TensorNaming.TensorSource read, ModelFolder model) {
    ScoreBias bias = (ScoreBias) model.architecture().positionTerms();   // as architecture() says
    return read.take(BIAS_TABLE, bias.buckets(), model.shape().heads());
  }
}
