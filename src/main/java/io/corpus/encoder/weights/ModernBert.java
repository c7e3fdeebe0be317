package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.ClassifierHead;
import io.corpus.encoder.model.LayerAttention;
import io.corpus.encoder.model.LayerWeights;
import io.corpus.encoder.model.Norm;
import io.corpus.encoder.model.TokenClassifierHead;
import io.corpus.encoder.model.Window;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * ModernBERT, as {@code modeling_modernbert.py} computes it: token embeddings then a norm (no
 * positions, no token types); pre-norm layers whose first has no norm before attention; a fused
 * {@code Wqkv}; rotary positions, with {@code global_rope_theta} on global layers and
 * {@code local_rope_theta} on local ones; layer i global when i is a multiple of
 * {@code global_attn_every_n_layers}, else each query sees the keys within
 * {@code local_attention / 2} positions; a gated feed-forward ({@code Wi} gives 2F values,
 * act(first half) ⊙ second half, then {@code Wo}); a final norm; no biases where
 * {@code attention_bias}, {@code mlp_bias}, {@code norm_bias} are false (zeros stand in).
 * Task checkpoints put the encoder under {@code model.}: {@code ModernBertForMaskedLM}'s
 * {@code head.*} and {@code decoder.*} are left out and listed;
 * {@code ModernBertForSequenceClassification}'s {@code head.*} and {@code classifier.*} are its
 * classifier ({@link #head}).
 *
 * <p>config.json comes in two forms: transformers 4.x writes {@code global_rope_theta} and
 * {@code local_rope_theta}; 5.x writes {@code layer_types} and {@code rope_parameters} per
 * layer type. Both are read, and refused where they disagree with the layer pattern.
 */
final class ModernBert extends NamedEncoder {
  private static final String GLOBAL = "full_attention";
  private static final String LOCAL = "sliding_attention";

  ModernBert() {
    super(new Names("modernbert", List.of("modernbert"),
        "gte-modernbert, modernbert-embed", "model.", "layers.",
        List.of("embeddings.", "layers.", "final_norm."))
        // ModernBertForSequenceClassification's head; ModernBertForTokenClassification's is
        // the same prediction head on every token
        .withHeads(HeadTensors.classifier("head.dense.weight", "head.norm.weight",
            "classifier.weight", "classifier.bias").withTokenAsClassifier()),
        EmbeddingNames.MODERNBERT, EncoderLayerNames.MODERNBERT);
  }

  @Override
  public Architecture architecture(JsonNode config, Path file) {
    int layers = ModelFamily.positiveInt(config, "num_hidden_layers", file);
    int every = ModelFamily.positiveInt(config, "global_attn_every_n_layers", 3, file);
    int localAttention = ModelFamily.positiveInt(config, "local_attention", 128, file);
    if (localAttention < 2) {
      throw new WeightsException(file + ": local_attention = " + localAttention
          + ", expected at least 2");
    }
    ModelFamily.given(config, "rope_scaling").ifPresent(scaling -> {
      throw new WeightsException(file + ": rope_scaling " + scaling + " is not supported (only "
          + "the default rotary positions)");
    });
    double globalTheta = theta(config, GLOBAL, "global_rope_theta", 160_000.0, file);
    double localTheta = config.path("local_rope_theta").isNull()
        && !config.has("rope_parameters") ? globalTheta
        : theta(config, LOCAL, "local_rope_theta", 10_000.0, file);
    Optional<JsonNode> given = ModelFamily.given(config, "layer_types");
    JsonNode types = given.orElse(MissingNode.getInstance());
    if (given.isPresent() && types.size() != layers) {
      throw new WeightsException(file + ": layer_types has " + types.size() + " entries for "
          + layers + " layers (num_hidden_layers); expected one per layer");
    }
    List<LayerAttention> attention = new ArrayList<>();
    for (int i = 0; i < layers; i++) {
      boolean global = i % every == 0;
      if (given.isPresent()) {
        String type = types.path(i).asText("");
        if (!type.equals(global ? GLOBAL : LOCAL)) {
          throw new WeightsException(file + ": layer_types[" + i + "] is '" + type + "' but "
              + "global_attn_every_n_layers = " + every + " makes layer " + i + " "
              + (global ? GLOBAL : LOCAL) + "; Hugging Face would mix the two");
        }
      }
      attention.add(global ? new LayerAttention(Window.GLOBAL, globalTheta)
          : new LayerAttention(Window.within(localAttention / 2), localTheta));
    }
    return Architecture.encoder(ModelFamily.activation(config, "hidden_activation", file),
            ModelFamily.positiveNumber(config, "norm_eps", 1e-5, file))
        .preNormWithFinalNorm().gated(true)
        .projectionBias(config.path("attention_bias").asBoolean(false))
        .feedForwardBias(config.path("mlp_bias").asBoolean(false))
        .normShift(config.path("norm_bias").asBoolean(false)).layers(attention).build();
  }

  /**
   * The rotary base of a layer type: 5.x's {@code rope_parameters[type].rope_theta}, else 4.x's
   * key, else Hugging Face's default. Only the default rotary type is run.
   */
  private static double theta(JsonNode config, String type, String key, double fallback,
      Path file) {
    JsonNode parameters = config.path("rope_parameters").path(type);
    if (!parameters.isMissingNode() && !parameters.isNull()) {
      String ropeType = parameters.path("rope_type").asText("default");
      if (!ropeType.equals("default")) {
        throw new WeightsException(file + ": rope_parameters." + type + ".rope_type '"
            + ropeType + "' is not supported (default)");
      }
      if (parameters.has("rope_theta")) {
        return ModelFamily.positiveNumber(parameters, "rope_theta", fallback, file);
      }
    }
    return ModelFamily.given(config, key).isPresent()
        ? ModelFamily.positiveNumber(config, key, fallback, file) : fallback;
  }

  @Override
  public LayerWeights layer(TensorNaming.TensorSource read, int i, ModelFolder model) {
    EncoderLayerNames.Reader layer = layerNames().reader(read, layerPrefix(i), model);
    // the first layer attends to the embeddings as they are (attn_norm is nn.Identity)
    return layer.feedForward(layer.attention())
        .norms(i == 0 ? Norm.none() : layer.attentionNorm(), layer.outputNorm()).build();
  }

  @Override
  public Norm finalNorm(TensorNaming.TensorSource read, ModelFolder model) {
    return EncoderLayerNames.norm(read, "final_norm", model.shape().width(),
        model.architecture().norms().shift());
  }

  /**
   * {@code ModernBertForSequenceClassification}'s head: {@code classifier_pooling} (cls or mean
   * of the states), {@code head.dense} (bias when {@code classifier_bias}),
   * {@code classifier_activation} (gelu), {@code head.norm}, then {@code classifier}.
   */
  @Override
  public HeadShape headShape(JsonNode config, Path file) {
    String pooling = config.path("classifier_pooling").asText("cls");
    String activation = config.path("classifier_activation").asText("gelu");
    if (!pooling.equals("cls") && !pooling.equals("mean")) {
      throw new WeightsException(file + ": classifier_pooling '" + pooling + "' is not "
          + "supported (cls, mean)");
    }
    if (!activation.equals("gelu")) {
      throw new WeightsException(file + ": classifier_activation '" + activation + "' is not "
          + "supported (gelu)");
    }
    return new HeadShape(pooling.equals("mean") ? ClassifierHead.Read.MEAN
        : ClassifierHead.Read.FIRST, ClassifierHead.DenseActivation.GELU,
        config.path("classifier_bias").asBoolean(false), -1);
  }

  @Override
  public ClassifierHead head(TensorNaming.TensorSource read, ModelFolder model, int labels) {
    int e = model.shape().width();
    ModelFolder.Classifier classifier = model.classifier().orElseThrow();
    HeadShape shape = classifier.shape();
    Norm norm = EncoderLayerNames.norm(read, "head.norm", e, model.architecture().norms().shift());
    return new ClassifierHead(read.take("head.dense.weight", e, e),
        shape.denseBias() ? read.take("head.dense.bias", e) : new float[e],
        read.take("classifier.weight", labels, e), read.take("classifier.bias", labels),
        classifier.labels(), classifier.scoring(),
        new ClassifierHead.Form(shape.read(), shape.activation(), norm,
            model.architecture().norms().eps(), -1));
  }

  @Override
  public TokenClassifierHead tokenHead(TensorNaming.TensorSource read, ModelFolder model,
      int labels) {
    ClassifierHead head = head(read, model, labels);
    return new TokenClassifierHead(head.poolerWeight(), head.poolerBias(), head.form(),
        head.weight(), head.bias(), head.labels());
  }
}
