package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.model.ClassifierHead;
import io.corpus.encoder.model.EmbeddingWeights;
import io.corpus.encoder.model.LayerAttention;
import io.corpus.encoder.model.LayerWeights;
import java.nio.file.Path;
import java.util.List;

/**
 * What differs between the encoder families a Hugging Face folder may hold, each one class: the
 * {@code model_type} values it reads, how its layers compute ({@link Architecture}, from
 * {@code config.json}), the one table of its tensor names (embeddings, layers, final norm), the
 * prefix its task checkpoints put before them, where its positions start, whether token types
 * reach the model, and its sequence-classification head.
 */
public interface ModelFamily {
  /** The name run summaries and errors give the family. */
  String name();

  /**
   * What config.json says of how the layers compute, beyond the shapes every family names alike
   * ({@code num_hidden_layers}, {@code hidden_size}, {@code num_attention_heads},
   * {@code intermediate_size}, {@code max_position_embeddings}).
   */
  Architecture architecture(JsonNode config, Path file);

  /** The prefix of the encoder's tensors in a task checkpoint ({@code bert.}, {@code model.}). */
  String taskPrefix();

  /**
   * The position row of a sequence's first token: 0 for BERT; RoBERTa's positions start after its
   * padding index ({@code pad_token_id + 1}), so a sequence may have P − offset tokens.
   */
  int positionOffset(JsonNode config, Path file);

  /**
   * Whether the tokenizer's token types reach the model. Hugging Face's RoBERTa tokenizers do
   * not pass {@code token_type_ids} to the model (their {@code model_input_names}), which then
   * embeds every token with type 0.
   */
  boolean usesTokenTypes();

  /** The tensor prefixes (after the task prefix is removed) the model reads; others are listed. */
  List<String> keptPrefixes(boolean classifier);

  /** Names of layer tensors start with this, then the layer index and a dot. */
  String layerPrefix();

  /** The embedding layer of the folder's checkpoint. */
  EmbeddingWeights embeddings(TensorNaming.TensorSource read, ModelFolder model);

  /** Layer i of the folder's checkpoint. */
  LayerWeights layer(TensorNaming.TensorSource read, int i, ModelFolder model);

  /** The final norm's scale and shift, or null when the family has none. */
  float[][] finalNorm(TensorNaming.TensorSource read, ModelFolder model);

  /**
   * The names of the classifier head's tensors that must be in a classifier's checkpoint; the
   * third is the output layer (labels, E), whose rows must be config.json's labels.
   */
  List<String> headTensors();

  /** What config.json says of the classifier head beyond its labels. */
  default HeadShape headShape(JsonNode config, Path file) {
    return HeadShape.FIRST_TANH;
  }

  /** The head: dense (E, E) + tanh on the first token's state, then out (labels, E). */
  default ClassifierHead head(TensorNaming.TensorSource read, ModelFolder model, int labels) {
    List<String> t = headTensors();
    int width = model.width();
    ModelFolder.Classifier classifier = model.classifier().orElseThrow();
    return new ClassifierHead(read.take(t.get(0), width, width), read.take(t.get(1), width),
        read.take(t.get(2), labels, width), read.take(t.get(3), labels), classifier.labels(),
        classifier.scoring());
  }

  /**
   * A classifier head's form, as config.json gives it.
   *
   * @param mean the dense layer reads the mean of the states, not the first token's
   * @param gelu GELU follows the dense layer, not tanh
   * @param denseBias the dense layer has a bias
   */
  record HeadShape(boolean mean, boolean gelu, boolean denseBias) {
    /** BERT's pooler and XLM-R's classifier.dense. */
    public static final HeadShape FIRST_TANH = new HeadShape(false, false, true);
  }

  /**
   * How a family's layers compute, as config.json says.
   *
   * @param activation the feed-forward's activation
   * @param layerNormEps eps of every norm
   * @param normFirst pre-norm layers (x + f(norm(x))) rather than post-norm (norm(x + f(x)))
   * @param finalNorm a norm after the last layer
   * @param projectionBias whether the attention's projections have biases
   * @param feedForwardBias whether the feed-forward's have
   * @param normBias whether the norms have a shift
   * @param layers how each layer attends, when layers differ; empty when all are plain
   */
  record Architecture(Activation activation, double layerNormEps, boolean normFirst,
      boolean finalNorm, boolean projectionBias, boolean feedForwardBias, boolean normBias,
      List<LayerAttention> layers) {}

  /** BERT (BGE, E5, MiniLM, …): {@code model_type} bert. */
  ModelFamily BERT = new Bert();
  /** XLM-RoBERTa and RoBERTa: {@code model_type} xlm-roberta or roberta. */
  ModelFamily ROBERTA = new Roberta();
  /** ModernBERT: {@code model_type} modernbert. */
  ModelFamily MODERNBERT = new ModernBert();

  /** What {@code model_type} names, or a refusal naming it and the families supported. */
  static ModelFamily of(JsonNode config, Path file) {
    String type = config.path("model_type").asText("");
    return switch (type) {
      case "bert" -> BERT;
      case "xlm-roberta", "roberta" -> ROBERTA;
      case "modernbert" -> MODERNBERT;
      default -> throw new WeightsException(file + ": model_type '" + type + "' is not "
          + "supported; this job runs bert (BERT, BGE, E5, MiniLM), xlm-roberta or roberta "
          + "(multilingual-e5, paraphrase-multilingual, bge-m3) and modernbert "
          + "(gte-modernbert, modernbert-embed) folders");
    };
  }

  /** The activation a config.json key names, or a refusal naming it. */
  static Activation activation(JsonNode config, String key, Path file) {
    String name = config.path(key).asText("gelu");
    return switch (name) {
      case "gelu" -> Activation.GELU;
      case "gelu_new", "gelu_pytorch_tanh" -> Activation.GELU_TANH;
      case "relu" -> Activation.RELU;
      default -> throw new WeightsException(file + ": " + key + " '" + name + "' is not "
          + "supported (gelu, gelu_new, gelu_pytorch_tanh, relu)");
    };
  }
}
