package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.AttentionHeads;
import io.corpus.encoder.model.ClassifierHead;
import io.corpus.encoder.model.DisentangledPositions;
import io.corpus.encoder.model.LayerWeights;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * DeBERTa-v2 and v3 (the NLI cross-encoders, mxbai-rerank-v1), as {@code modeling_deberta_v2.py}
 * computes them: word embeddings (+ positions when {@code position_biased_input}, + token types
 * when {@code type_vocab_size} > 0), normalized; BERT's post-norm layers under
 * {@code encoder.layer.i.} with {@code attention.self.query_proj}, {@code key_proj},
 * {@code value_proj}, and disentangled attention ({@link DisentangledPositions}) over
 * {@code encoder.rel_embeddings} (normalized by {@code encoder.LayerNorm} when
 * {@code norm_rel_ebd} says layer_norm). Task checkpoints put the encoder under
 * {@code deberta.}; {@code DebertaV2ForSequenceClassification}'s head is the ContextPooler
 * ({@code pooler.dense} and {@code pooler_hidden_act} on the first token) then
 * {@code classifier}.
 */
final class DebertaV2 extends NamedEncoder {
  private static final String LAYERS = "encoder.layer.";
  private static final String RELATIVE = "encoder.rel_embeddings.weight";
  private static final String RELATIVE_NORM = "encoder.LayerNorm.";

  DebertaV2() {
    super(new Names("deberta-v2", List.of("deberta-v2"),
        "DeBERTa-v3 cross-encoders, mxbai-rerank-v1", "deberta.", LAYERS,
        List.of("embeddings.", "encoder."))
        .withHeads(HeadTensors.classifier("pooler.dense.weight", "pooler.dense.bias",
            "classifier.weight", "classifier.bias")),
        EmbeddingNames.DEBERTA, EncoderLayerNames.DEBERTA);
  }

  @Override
  public Architecture architecture(JsonNode config, Path file) {
    refuseUnlessZero(config, "conv_kernel_size", file, "the convolution after the first layer "
        + "(deberta-v2-xlarge's)");
    int width = ModelFamily.positiveInt(config, "hidden_size", file);
    int heads = ModelFamily.positiveInt(config, "num_attention_heads", file);
    if (config.path("embedding_size").asInt(width) != width
        || config.path("pooler_hidden_size").asInt(width) != width) {
      throw new WeightsException(file + ": embedding_size " + config.get("embedding_size")
          + " and pooler_hidden_size " + config.get("pooler_hidden_size") + " must equal "
          + "hidden_size " + width + " here (no embed_proj)");
    }
    List<String> terms = positionTerms(config);
    boolean c2p = terms.contains("c2p");
    boolean p2c = terms.contains("p2c");
    int headWidth = config.has("attention_head_size")
        ? ModelFamily.positiveInt(config, "attention_head_size", file) : width / heads;
    // the scale counts the position terms pos_att_type names, relative_attention or not
    double scale = 1 / Math.sqrt((float) headWidth * (1 + (c2p ? 1 : 0) + (p2c ? 1 : 0)));
    Architecture.Builder architecture = Architecture.encoder(
            ModelFamily.activation(config, "hidden_act", file),
            ModelFamily.positiveNumber(config, "layer_norm_eps", 1e-7, file))
        .attention(new AttentionHeads.Shaped(heads, headWidth, scale))
        .positionTable(config.path("position_biased_input").asBoolean(true));
    if (config.path("relative_attention").asBoolean(false) && (c2p || p2c)) {
      int maxRelative = config.path("max_relative_positions").asInt(-1);
      if (maxRelative < 1) {
        maxRelative = ModelFamily.positiveInt(config, "max_position_embeddings", file);
      }
      int buckets = Math.max(0, config.path("position_buckets").asInt(-1));
      if (buckets > 0 && (buckets < 4 || maxRelative - 1 <= buckets / 2)) {
        throw new WeightsException(file + ": position_buckets " + buckets + " with "
            + "max_relative_positions " + maxRelative + " gives no log-spaced buckets (needs "
            + "at least 4 buckets and a maximum beyond half of them)");
      }
      boolean normalized = List.of(config.path("norm_rel_ebd").asText("none").toLowerCase()
          .split("\\|")).stream().map(String::strip).toList().contains("layer_norm");
      architecture.disentangled(new DisentangledPositions(buckets > 0 ? buckets : maxRelative,
          buckets, maxRelative, c2p, p2c, config.path("share_att_key").asBoolean(false),
          normalized));
    }
    return architecture.build();
  }

  /** {@code pos_att_type}: a list, or a string such as "p2c|c2p" (DebertaV2Config splits it). */
  private static List<String> positionTerms(JsonNode config) {
    JsonNode types = config.path("pos_att_type");
    List<String> terms = new ArrayList<>();
    if (types.isArray()) {
      types.forEach(t -> terms.add(t.asText().strip().toLowerCase()));
    } else if (types.isTextual()) {
      for (String t : types.asText().toLowerCase().split("\\|")) {
        terms.add(t.strip());
      }
    }
    return terms;
  }

  private static void refuseUnlessZero(JsonNode config, String key, Path file, String what) {
    if (config.path(key).asInt(0) > 0) {
      throw new WeightsException(file + ": " + key + " = " + config.get(key) + " asks for "
          + what + ", which this job does not compute");
    }
  }

  @Override
  public LayerWeights layer(TensorNaming.TensorSource read, int i, ModelFolder model) {
    String p = layerPrefix(i);
    LayerWeights.Builder layer = layerNames().builder(read, p, model);
    if (model.architecture().positionTerms() instanceof DisentangledPositions form) {
      int e = model.shape().width();
      int inner = model.settings().headWidth(e) * model.shape().heads();
      // one table for every layer, read and normalized once a load
      float[] relative = read.shared(RELATIVE, () -> DisentangledPositions.normalized(
          read.take(RELATIVE, 2L * form.span(), e),
          form.normalized() ? read.take(RELATIVE_NORM + "weight", e) : null,
          form.normalized() ? read.take(RELATIVE_NORM + "bias", e) : null,
          model.architecture().norms().eps()));
      // shared: the positions go through the layer's own key and query projections, the rows
      // of its stacked q, k, v as the table read them; otherwise through pos_key_proj and
      // pos_query_proj
      LayerWeights own = layer.build();
      String a = p + "attention.self.pos_";
      boolean shared = form.sharedProjections();
      layer.relativePositions(form.contentToPosition() ? DisentangledPositions.project(relative,
              shared ? rows(own.inProjWeight().floats(), inner, inner, e)
                  : read.take(a + "key_proj.weight", inner, e),
              shared ? rows(own.inProjBias(), inner, inner, 1)
                  : read.take(a + "key_proj.bias", inner)) : new float[0],
          form.positionToContent() ? DisentangledPositions.project(relative,
              shared ? rows(own.inProjWeight().floats(), 0, inner, e)
                  : read.take(a + "query_proj.weight", inner, e),
              shared ? rows(own.inProjBias(), 0, inner, 1)
                  : read.take(a + "query_proj.bias", inner)) : new float[0]);
    }
    return layer.build();
  }

  /** Rows {@code from .. from + count} of a row-major table {@code width} values wide. */
  private static float[] rows(float[] table, int from, int count, int width) {
    return Arrays.copyOfRange(table, from * width, (from + count) * width);
  }

  /** The ContextPooler: {@code pooler_hidden_act} (gelu unless said) on the first token. */
  @Override
  public HeadShape headShape(JsonNode config, Path file) {
    String act = config.path("pooler_hidden_act").asText("gelu");
    ClassifierHead.DenseActivation activation = switch (act) {
      case "gelu" -> ClassifierHead.DenseActivation.GELU;
      case "tanh" -> ClassifierHead.DenseActivation.TANH;
      case "relu" -> ClassifierHead.DenseActivation.RELU;
      default -> throw new WeightsException(file + ": pooler_hidden_act '" + act + "' is not "
          + "supported (gelu, tanh, relu)");
    };
    return new HeadShape(ClassifierHead.Read.FIRST, activation, true, -1);
  }
}
