package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.BeforePooling;
import io.corpus.encoder.model.ClassifierHead;
import io.corpus.encoder.model.EmbeddingWeights;
import io.corpus.encoder.model.LayerWeights;
import io.corpus.encoder.model.Norm;
import io.corpus.encoder.model.TokenClassifierHead;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What differs between the encoder families a Hugging Face folder may hold, each one class: the
 * {@code model_type} values it reads, how its layers compute ({@link Architecture}, from
 * {@code config.json}), the one table of its tensor names (embeddings, layers, final norm), the
 * prefix its task checkpoints put before them and where its heads' tensors are
 * ({@link Names}), where its positions start, and its sequence-classification head.
 */
public interface ModelFamily {
  /**
   * Who a family is and where its checkpoints keep their tensors: data, one record a family.
   *
   * @param name the name run summaries and errors give the family
   * @param modelTypes the {@code model_type} values of config.json the family reads
   * @param examples models of the family users know, for messages
   * @param taskPrefix the prefix of the encoder's tensors in a task checkpoint ({@code bert.},
   *     {@code model.})
   * @param layerPrefix names of layer tensors start with this, then the layer index and a dot
   * @param modelPrefixes the tensor prefixes (after the task prefix is removed) the model reads;
   *     others are listed as left out
   * @param heads where its heads' tensors are
   * @param customCode how the classes of the family's own modelling code begin ({@code New},
   *     {@code NomicBert}): a config.json whose {@code auto_map} names only such classes is the
   *     family's, which the job carries instead of running
   *     ({@link ModelFamily#implementsCustomCode}); "" when there is none
   */
  record Names(String name, List<String> modelTypes, String examples, String taskPrefix,
      String layerPrefix, List<String> modelPrefixes, HeadTensors heads, String customCode) {
    /** A family's names with no head read ({@link HeadTensors#NONE}) and no custom code. */
    public Names(String name, List<String> modelTypes, String examples, String taskPrefix,
        String layerPrefix, List<String> modelPrefixes) {
      this(name, modelTypes, examples, taskPrefix, layerPrefix, modelPrefixes, HeadTensors.NONE,
          "");
    }

    /** The same, with its heads' tensors where {@code tensors} says. */
    Names withHeads(HeadTensors tensors) {
      return new Names(name, modelTypes, examples, taskPrefix, layerPrefix, modelPrefixes,
          tensors, customCode);
    }

    /** The same, carrying the custom code whose classes begin with {@code classes}. */
    Names withCustomCode(String classes) {
      return new Names(name, modelTypes, examples, taskPrefix, layerPrefix, modelPrefixes,
          heads, classes);
    }

    /** The same, with no classifier head read. */
    public Names withoutHead() {
      return withHeads(heads.withoutClassifier());
    }
  }

  /** The family's {@link Names}. */
  Names names();

  /** The name run summaries and errors give the family. */
  default String name() {
    return names().name();
  }

  /**
   * The model's sizes as config.json names them: by default BERT's keys
   * ({@code num_hidden_layers}, {@code hidden_size}, {@code num_attention_heads},
   * {@code intermediate_size}, {@code max_position_embeddings}).
   */
  default Shape shape(JsonNode config, Path file) {
    return new Shape(positiveInt(config, "num_hidden_layers", file),
        positiveInt(config, "hidden_size", file), positiveInt(config, "num_attention_heads", file),
        positiveInt(config, "intermediate_size", file),
        positiveInt(config, "max_position_embeddings", file));
  }

  /** What config.json says of how the layers compute, beyond the model's sizes. */
  Architecture architecture(JsonNode config, Path file);

  /**
   * Whether the family runs a folder whose config.json has an {@code auto_map} (custom
   * modelling code, which the job never runs): only when the family carries its own
   * implementation of the architecture it names ({@link Names#customCode}).
   */
  default boolean implementsCustomCode(JsonNode config) {
    String classes = names().customCode();
    return !classes.isEmpty() && autoMapNames(config.path("auto_map"), classes);
  }

  /**
   * What the family's own code does to the pooled tokens' final states first (NV-Embed's latent
   * attention), or nothing.
   */
  default BeforePooling beforePooling(TensorNaming.TensorSource read, ModelFolder model) {
    return BeforePooling.NOTHING;
  }

  /**
   * How the family's own code pools, when it does so itself rather than by sentence-transformers'
   * modules (NV-Embed: a mean over the tokens after the instruction, normalized); empty: the
   * folder's modules say.
   *
   * @param config config.json
   */
  default java.util.Optional<OwnPooling> ownPooling(JsonNode config) {
    return java.util.Optional.empty();
  }

  /**
   * A family's own pooling.
   *
   * @param pooling the pooling mode
   * @param normalize whether the vector is L2-normalized
   * @param promptPooled whether the prompt's tokens are pooled
   * @param appendsEos whether the family's own code appends the tokenizer's eos token to every
   *     text as text, before tokenizing (so that a cut text loses it)
   */
  record OwnPooling(io.corpus.encoder.model.Pooling pooling, boolean normalize,
      boolean promptPooled, boolean appendsEos) {}

  /** A table every layer's score bias reads (MPNet's relative buckets); empty for none. */
  default float[] scoreBiasTable(TensorNaming.TensorSource read, ModelFolder model) {
    return new float[0];
  }

  /**
   * The position row of a sequence's first token: 0 for BERT; RoBERTa's positions start after its
   * padding index ({@code pad_token_id + 1}), so a sequence may have P − offset tokens.
   */
  default int positionOffset(JsonNode config, Path file) {
    return 0;
  }

  /**
   * The tensor prefixes (after the task prefix is removed) the model reads, with the head's
   * when it is a {@code classifier}; others are listed.
   */
  default List<String> keptPrefixes(boolean classifier) {
    List<String> kept = new ArrayList<>(names().modelPrefixes());
    kept.addAll(classifier ? names().heads().classifierPrefixes() : List.of());
    return List.copyOf(kept);
  }

  /** The embedding layer of the folder's checkpoint. */
  EmbeddingWeights embeddings(TensorNaming.TensorSource read, ModelFolder model);

  /** Layer i of the folder's checkpoint. */
  LayerWeights layer(TensorNaming.TensorSource read, int i, ModelFolder model);

  /** The norm after the last layer, if the family has one. */
  default Norm finalNorm(TensorNaming.TensorSource read, ModelFolder model) {
    return Norm.none();
  }

  /** The token-classification head: {@code classifier} on every token's state. */
  default TokenClassifierHead tokenHead(TensorNaming.TensorSource read, ModelFolder model,
      int labels) {
    List<String> t = names().heads().token();
    int width = model.shape().width();
    return TokenClassifierHead.linear(read.take(t.get(t.size() - 2), labels, width),
        read.take(t.get(t.size() - 1), labels), model.classifier().orElseThrow().labels());
  }

  /** What config.json says of the classifier head beyond its labels. */
  default HeadShape headShape(JsonNode config, Path file) {
    return HeadShape.FIRST_TANH;
  }

  /**
   * The head: dense (E, E) and its activation ({@link #headShape}: tanh unless the family says
   * otherwise) on the first token's state, then out (labels, E).
   */
  default ClassifierHead head(TensorNaming.TensorSource read, ModelFolder model, int labels) {
    List<String> t = names().heads().classifier();
    int width = model.shape().width();
    ModelFolder.Classifier classifier = model.classifier().orElseThrow();
    return new ClassifierHead(read.take(t.get(0), width, width), read.take(t.get(1), width),
        read.take(t.get(2), labels, width), read.take(t.get(3), labels), classifier.labels(),
        classifier.scoring(), new ClassifierHead.Form(classifier.shape().read(),
            classifier.shape().activation(), Norm.none(), 0, classifier.shape().padId()));
  }

  /**
   * A classifier head's form, as config.json gives it.
   *
   * @param read which state the head reads: the first token's, the mean, or (decoders) the last
   *     that is not the pad token
   * @param activation what follows the dense layer (NONE: there is none)
   * @param denseBias the dense layer has a bias
   * @param padId config.json's {@code pad_token_id}, where the head passes over it; else -1
   */
  record HeadShape(ClassifierHead.Read read, ClassifierHead.DenseActivation activation,
      boolean denseBias, int padId) {
    /** BERT's pooler and XLM-R's classifier.dense. */
    public static final HeadShape FIRST_TANH = new HeadShape(ClassifierHead.Read.FIRST,
        ClassifierHead.DenseActivation.TANH, true, -1);
  }

  /**
   * A model's sizes.
   *
   * @param layers L
   * @param width E
   * @param heads H
   * @param ffnWidth F
   * @param maxPositions P, the positions the model was made for
   */
  record Shape(int layers, int width, int heads, int ffnWidth, int maxPositions) {}

  /**
   * Every family the job runs, one line each, in the order errors list them. Exactly one reads
   * any config.json (JinaBERT and BERT both read model_type bert, and tell theirs apart by
   * Jina's implementation), so the order does not choose.
   */
  List<ModelFamily> ALL = List.of(new JinaBert(), new Bert(), new Roberta(), new JinaXlmRoberta(),
      new ModernBert(),
      new MpNet(), new NomicBert(), new DistilBert(), new Gte(), new Qwen2(), new Qwen3(),
      new Gemma3(), new Mistral(), new NvEmbed(), new Llama(), new EuroBert(), new DebertaV2());

  /** The families supported, for refusals. */
  String SUPPORTED = "this job runs " + Registry.supported() + " folders, and folders of static "
      + "embeddings (model2vec, sentence-transformers' StaticEmbedding)";

  /**
   * Whether this family reads a config.json whose {@code model_type} is one of its types; a
   * family may look further (JinaBERT is a {@code bert} with ALiBi).
   */
  default boolean reads(JsonNode config) {
    return names().modelTypes().contains(config.path("model_type").asText(""));
  }

  /** The family that reads config.json, or a refusal naming model_type and the families. */
  static ModelFamily of(JsonNode config, Path file) {
    return of(config, file, ALL);
  }

  /** The one family of {@code families} that reads config.json. */
  static ModelFamily of(JsonNode config, Path file, List<ModelFamily> families) {
    List<ModelFamily> reading = families.stream().filter(f -> f.reads(config)).toList();
    if (reading.size() > 1) {
      throw new IllegalStateException(file + " is read by " + reading.stream()
          .map(ModelFamily::name).toList() + ": a family must tell its configs from another's");
    }
    if (reading.size() == 1) {
      return reading.get(0);
    }
    throw new WeightsException(file + ": model_type '" + config.path("model_type").asText("")
        + "' is not supported; " + SUPPORTED);
  }

  /**
   * Whether {@code autoMap} names classes only, and at least one, whose simple names start with
   * {@code prefix} ({@code NomicBert}, {@code New}): custom code a family carries itself.
   */
  static boolean autoMapNames(JsonNode autoMap, String prefix) {
    List<String> names = new ArrayList<>();
    autoMap.elements().forEachRemaining(n -> names.add(n.asText("")));
    return !names.isEmpty() && names.stream()
        .allMatch(n -> n.substring(n.lastIndexOf('.') + 1).startsWith(prefix));
  }

  /**
   * A positive number under {@code key} of {@code node} (config.json or a part of it), as a
   * rotary base or a norm's eps is: {@code absent} when the key is absent or null; else a
   * refusal naming it. A base of 0 was once taken for no rotary positions at all, and a string
   * for the family's default.
   */
  static double positiveNumber(JsonNode node, String key, double absent, Path file) {
    JsonNode value = node.path(key);
    if (value.isMissingNode() || value.isNull()) {
      return absent;
    }
    if (!value.isNumber() || !(value.asDouble() > 0) || Double.isInfinite(value.asDouble())) {
      throw new WeightsException(file + ": " + key + " is " + value + ", expected a positive "
          + "number");
    }
    return value.asDouble();
  }

  /**
   * A positive integer under {@code key}, {@code absent} when the key is absent or null, else a
   * refusal naming it (a string was once taken for the default).
   */
  static int positiveInt(JsonNode config, String key, int absent, Path file) {
    JsonNode value = config.path(key);
    return value.isMissingNode() || value.isNull() ? absent : positiveInt(config, key, file);
  }

  /** A positive integer config.json must hold under {@code key}, or a refusal naming it. */
  static int positiveInt(JsonNode config, String key, Path file) {
    JsonNode value = config.path(key);
    if (!value.isNumber() || !value.canConvertToInt() || value.asInt() < 1
        || value.asDouble() != value.asInt()) {   // 32.5 is no count (asInt would make it 32)
      throw new WeightsException(file + ": " + key + " is "
          + (value.isMissingNode() ? "missing" : value.toString())
          + ", expected a positive integer");
    }
    return value.asInt();
  }

  /**
   * What a config.json holds under {@code key}, unless it is absent or null: either way the
   * library's default applies, as PretrainedConfig's attributes default.
   */
  static Optional<JsonNode> given(JsonNode config, String key) {
    JsonNode value = config.path(key);
    return value.isMissingNode() || value.isNull() ? Optional.empty() : Optional.of(value);
  }

  /** The activation a config.json key names, or a refusal naming it. */
  static Activation activation(JsonNode config, String key, Path file) {
    String name = config.path(key).asText("gelu");
    return switch (name) {
      case "gelu" -> Activation.GELU;
      case "gelu_new", "gelu_pytorch_tanh" -> Activation.GELU_TANH;
      case "relu" -> Activation.RELU;
      case "silu", "swish" -> Activation.SILU;
      default -> throw new WeightsException(file + ": " + key + " '" + name + "' is not "
          + "supported (gelu, gelu_new, gelu_pytorch_tanh, relu, silu)");
    };
  }

  /** Helpers of the registry. */
  final class Registry {
    private Registry() {}

    /** Each family's model types and examples, families of the same types together. */
    static String supported() {
      Map<String, List<String>> examples = new LinkedHashMap<>();
      for (ModelFamily f : ALL) {
        examples.computeIfAbsent(list(f.names().modelTypes(), "or"), k -> new ArrayList<>())
            .add(f.names().examples());
      }
      return list(examples.entrySet().stream()
          .map(e -> e.getKey() + " (" + String.join("; ", e.getValue()) + ")").toList(), "and");
    }

    /** "a, b and c" (or "a, b or c"). */
    static String list(List<String> items, String conjunction) {
      int last = items.size() - 1;
      return last == 0 ? items.get(0) : String.join(", ", items.subList(0, last)) + " "
          + conjunction + " " + items.get(last);
    }
  }
}
