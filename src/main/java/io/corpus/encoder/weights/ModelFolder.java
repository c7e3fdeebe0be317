package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.corpus.encoder.common.JsonProblem;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.ClassifierHead;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.PositionalEncoding;
import io.corpus.encoder.model.Window;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * A Hugging Face model folder of an encoder family ({@link ModelFamily}: BERT, XLM-RoBERTa,
 * ModernBERT), as downloaded from the hub: the architecture from {@code config.json}, the weights
 * ({@code model.safetensors} or the shards its {@code .index.json} names),
 * {@code tokenizer.json}, and, for a sentence-transformers model, its pipeline
 * ({@code modules.json}: pooling mode, Normalize, {@code max_seq_length}). Read once, on the
 * driver.
 *
 * @param folder the folder
 * @param family what {@code model_type} names
 * @param positionOffset the position row of a sequence's first token (RoBERTa: after padding)
 * @param shape L, E, H, F and P as config.json gives them ({@code num_hidden_layers},
 *     {@code hidden_size}, {@code num_attention_heads}, {@code intermediate_size},
 *     {@code max_position_embeddings}, or the family's own names)
 * @param architecture how the layers compute, as the family reads config.json: activation,
 *     norm eps and placement, biases, and how each layer attends
 * @param maxSeqLength sentence-transformers' {@code max_seq_length}, if the folder has one
 * @param pooling the sentence-transformers pooling mode, if the folder has one
 * @param normalize whether the sentence-transformers pipeline ends in Normalize (L2)
 * @param weightFiles the safetensors file, or its shards
 * @param tokenizer {@code tokenizer.json}, if present
 * @param classifier the sequence-classification head, when {@code architectures} names a
 *     {@code …ForSequenceClassification}
 * @param prompts the sentence-transformers prompts ({@code config_sentence_transformers.json})
 * @param dense the folders of the sentence-transformers Dense modules after pooling, in order
 * @param splade how a SparseEncoder's {@code SpladePooling} pools (max and relu when the folder
 *     has none and SPLADE is asked for)
 * @param stripsTexts whether texts lose their edge whitespace before tokenizing, as
 *     sentence-transformers' Transformer module strips them (a folder whose modules.json runs
 *     one, or a folder's own Transformer module that does the same, as jina-embeddings-v3's);
 *     Hugging Face's own pipelines, CrossEncoder.predict and jina-embeddings-v5's own module
 *     tokenize texts as given
 * @param reranker how a causal language model is read as a reranker ({@link #withReranker}),
 *     or NONE
 * @param lateInteraction a PyLate ColBERT folder's settings and token projections, if it is one
 * @param lowercasesTexts whether texts are lower-cased before tokenizing, as
 *     sentence-transformers' Transformer module does when {@code sentence_bert_config.json} says
 *     {@code do_lower_case}
 * @param task the task adapter merged into the weights ({@link #withTask}), if the folder
 *     carries one per task
 * @param textSuffix text appended to every text before tokenizing ("" for none): NV-Embed's
 *     eos token, which its own code appends as text
 */
public record ModelFolder(Path folder, ModelFamily family, int positionOffset,
    ModelFamily.Shape shape, Architecture architecture, Optional<Integer> maxSeqLength,
    Optional<Pooling> pooling, boolean normalize, List<Path> weightFiles, Optional<Path> tokenizer,
    Optional<Classifier> classifier, Prompts prompts, List<Path> dense, Splade splade,
    boolean stripsTexts, Reranker reranker, Optional<LateInteraction> lateInteraction,
    boolean lowercasesTexts, Optional<TaskAdapter> task, String textSuffix) {

  /**
   * sentence-transformers' {@code SpladePooling} config.
   *
   * @param sum {@code pooling_strategy} sum (else max)
   * @param twiceLog {@code activation_function} log1p_relu (else relu)
   */
  public record Splade(boolean sum, boolean twiceLog) {
    /** SPLADE v2 and later: max over tokens of log(1 + relu). */
    public static final Splade MAX_RELU = new Splade(false, false);
  }

  /**
   * A sentence-transformers folder's prompts: text put before each text to encode, by name
   * ({@code "query": "query: "}), the one used when none is asked for, and whether pooling counts
   * the prompt's tokens ({@code 1_Pooling}'s {@code include_prompt}, true unless it says false).
   */
  public record Prompts(Map<String, String> byName, Optional<String> defaultName,
      boolean pooled) {
    public static final Prompts NONE = new Prompts(Map.of(), Optional.empty(), true);
  }

  /**
   * What config.json says of a sequence-classification head.
   *
   * @param labels {@code id2label} in id order ({@code LABEL_i} for {@code num_labels} without it)
   * @param scoring a sentence-transformers CrossEncoder's configured activation; else sigmoid for
   *     one label or {@code problem_type} multi_label_classification, softmax otherwise, as
   *     Hugging Face's text-classification pipeline applies them
   * @param shape the head's form, as the family reads config.json
   * @param perToken a token classifier ({@code …ForTokenClassification}: a label per token, the
   *     pipeline's softmax), not a sequence classifier
   */
  public record Classifier(List<String> labels, ClassifierHead.Scoring scoring,
      ModelFamily.HeadShape shape, boolean perToken) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  /** bge-m3's lexical head beside the checkpoint: Linear(E, 1), a torch.save'd state dict. */
  public static final String SPARSE_LINEAR = "sparse_linear.pt";
  /** bge-m3's ColBERT head beside the checkpoint: Linear(E, D), a torch.save'd state dict. */
  public static final String COLBERT_LINEAR = "colbert_linear.pt";

  /** Whether the folder holds {@code name} ({@link #SPARSE_LINEAR}, {@link #COLBERT_LINEAR}). */
  public boolean has(String name) {
    return Files.isRegularFile(folder.resolve(name));
  }

  /** How the encoder computes for this model, as its config.json says. */
  public ModelSettings settings() {
    return settings(List.of());
  }

  /**
   * A model setting given beside the folder (a job's {@code model.*} key, a transformer's param),
   * which must agree with {@code config.json}.
   *
   * @param name the setting as the user wrote it, for messages ({@code model.heads})
   * @param field what it sets: heads, activation, layer-norm-eps, norm-first, final-norm,
   *     positional, naming, causal or window
   * @param value its value: Integer, Double, Boolean, or the configuration name of an enum
   */
  public record Given(String name, String field, Object value) {}

  /**
   * The folder's settings. Every setting given must equal what the folder says, an error naming
   * both values: a family attends as it was trained, so a causal or window rule the family does
   * not have is refused, never laid on it.
   */
  public ModelSettings settings(List<Given> given) {
    for (Given g : given) {
      switch (g.field()) {
        case "heads" -> agree(g, shape.heads(), "num_attention_heads = " + shape.heads());
        case "activation" -> agree(g, architecture.activation().configName(),
            "its hidden_act is activation " + architecture.activation().configName());
        case "layer-norm-eps" -> agree(g, architecture.norms().eps(),
            "layer_norm_eps = " + architecture.norms().eps());
        case "norm-first" -> agree(g, architecture.norms().placement().first(), "model_type = "
            + family.name() + ", whose layers are "
            + (architecture.norms().placement().first() ? "pre" : "post")
            + "-LN");
        case "final-norm" -> agree(g, architecture.norms().finalNorm(), "model_type = "
            + family.name() + (architecture.norms().finalNorm() ? ", which has" : ", which has no")
            + " final LayerNorm");
        case "positional" -> agree(g, PositionalEncoding.NONE.configName(),
            "model_type = " + family.name() + ", whose positions are "
            + (architecture.layers().isEmpty() ? "in its embedding layer" : "rotary"));
        case "naming" -> agree(g, TensorNaming.BERT.configName(),
            "model_type = " + family.name() + ", whose tensors use " + family.name()
            + " naming");
        case "causal" -> agree(g, architecture.causal(), "model_type = " + family.name()
            + (architecture.causal() ? ", a decoder whose queries see no later key"
            : ", whose queries see the keys after them too, as it was trained (causal attention "
            + "is for a weights file)"));
        case "window" -> agree(g, 0, "model_type = " + family.name() + ", whose attention "
            + "windows, if any, are its config.json's (a window of its own is for a weights "
            + "file)");
        default -> throw new IllegalArgumentException("Unknown model setting " + g.field());
      }
    }
    return new ModelSettings(shape.heads(), architecture, Window.GLOBAL, PositionalEncoding.NONE);
  }

  private void agree(Given given, Object folderValue, String folderSays) {
    if (!folderValue.equals(given.value())) {
      throw new WeightsException(given.name() + " = " + given.value() + " contradicts "
          + folder.resolve("config.json") + ": " + folderSays + ". Leave " + given.name()
          + " out to take the folder's value");
    }
  }

  /** The pooled vector's width: the last Dense module's out_features, else E. */
  public int pooledWidth() {
    return dense.isEmpty() ? shape.width()
        : json(dense.get(dense.size() - 1).resolve("config.json")).path("out_features")
            .asInt(shape.width());
  }

  /** The most tokens a sequence may have: max_seq_length, else the position table. */
  public int maxTokens() {
    return Math.min(maxSeqLength.orElse(usablePositions()), usablePositions());
  }

  /** Positions a sequence may use: the table's rows after the family's offset. */
  public int usablePositions() {
    return shape.maxPositions() - positionOffset;
  }

  /**
   * The token limit for {@code requested} tokens (0: the folder's own, never beyond the position
   * table); {@code setting} names the request in the error when it exceeds the positions.
   */
  public int tokenLimit(int requested, String setting) {
    if (requested > usablePositions()) {
      throw new WeightsException(setting + " = " + requested + " is more than the "
          + usablePositions() + " positions of the model (max_position_embeddings in "
          + folder.resolve("config.json") + (positionOffset > 0 ? ", less the " + positionOffset
          + " before the first position of " + family.name() : "") + ")");
    }
    return requested > 0 ? requested : maxTokens();
  }

  /**
   * As {@link #tokenLimit(int, String)} for a text read as a query or a document: with none
   * requested, a PyLate folder's query_length or document_length.
   */
  public int tokenLimit(int requested, String setting, boolean query) {
    int length = requested > 0 || lateInteraction.isEmpty() ? requested
        : query ? lateInteraction.get().queryLength() : lateInteraction.get().documentLength();
    return tokenLimit(length, setting);
  }

  /** Reads the folder; errors name the file and the value. */
  public static ModelFolder read(Path folder) {
    if (!Files.isDirectory(folder)) {
      throw new WeightsException("model.path " + folder + " is not a folder");
    }
    Optional<StaticEmbeddings> lookup = StaticEmbeddings.of(folder);
    if (lookup.isPresent()) {
      return readStatic(folder, lookup.get());
    }
    Path file = folder.resolve("config.json");
    JsonNode config = json(file);
    ModelFamily family = ModelFamily.of(config, file);
    if (config.has("auto_map") && !family.implementsCustomCode(config)) {
      throw new WeightsException(file + ": auto_map names custom modelling code ("
          + config.get("auto_map") + "), which this job does not run and model_type "
          + family.name() + " does not implement; " + ModelFamily.SUPPORTED);
    }
    Optional<Classifier> classifier = classifier(config, file, family);
    SentenceTransformerFiles st = SentenceTransformerFiles.read(folder,
        folder.resolve("modules.json"), config);
    ModelFamily.Shape shape = family.shape(config, file);
    Optional<ModelFamily.OwnPooling> own = family.ownPooling(config);
    ModelFolder read = new ModelFolder(folder, family, family.positionOffset(config, file),
        shape, family.architecture(config, file), st.maxSeqLength(),
        own.map(o -> Optional.of(o.pooling())).orElse(st.pooling()),
        own.map(ModelFamily.OwnPooling::normalize).orElse(st.normalize()), weightFiles(folder),
        Optional.of(folder.resolve("tokenizer.json")).filter(Files::isRegularFile), classifier,
        own.map(o -> new Prompts(st.prompts().byName(), st.prompts().defaultName(),
            o.promptPooled())).orElse(st.prompts()), st.dense(), st.splade(),
        st.strips(), Reranker.NONE, st.lateInteraction(), st.lowercases(), Optional.empty(), "");
    return own.filter(ModelFamily.OwnPooling::appendsEos).isEmpty() ? read
        : read.withTextSuffix(read.specialToken("eos_token").orElseThrow(() ->
            new WeightsException(folder + ": " + family.name() + " appends the tokenizer's eos "
                + "token to every text, and neither special_tokens_map.json nor "
                + "tokenizer_config.json names one")));
  }

  /**
   * A folder of static embeddings: no layer, its table's width, no position limit, the mean of
   * the tokens' rows, normalized as model2vec's config or the sentence-transformers modules say.
   */
  private static ModelFolder readStatic(Path folder, StaticEmbeddings lookup) {
    SentenceTransformerFiles st = SentenceTransformerFiles.read(folder,
        folder.resolve("modules.json"), MissingNode.getInstance());
    if (st.pooling().isPresent() || st.lateInteraction().isPresent()) {
      throw new WeightsException(folder.resolve("modules.json") + ": a StaticEmbedding module "
          + "gives the text's vector itself; only Normalize or Dense modules may follow it");
    }
    return new ModelFolder(folder, lookup, 0,
        new ModelFamily.Shape(0, lookup.width(), 1, 0, Integer.MAX_VALUE),
        lookup.architecture(null, null), Optional.empty(),
        Optional.of(Pooling.MEAN), lookup.normalize().orElse(st.normalize()),
        List.of(lookup.weightFile()), Optional.of(lookup.tokenizer()), Optional.empty(),
        st.prompts(), lookup.normalize().isPresent() ? List.of() : st.dense(), Splade.MAX_RELU,
        false, Reranker.NONE, Optional.empty(), false, Optional.empty(), "");
  }

  /** The static embeddings this folder holds in place of a transformer, if it does. */
  public Optional<StaticEmbeddings> staticEmbeddings() {
    return family instanceof StaticEmbeddings s ? Optional.of(s) : Optional.empty();
  }

  /**
   * This folder read as {@code reranker} says ({@code model.reranker}): each pair goes into the
   * reranker's template, and a causal language model of the reranker's family becomes a
   * one-label classifier, its score sigmoid(yes − no) at the last token (a folder converted to a
   * sequence classifier keeps its own head, that same difference); NONE leaves it as it is.
   * Anything else is refused in one line.
   */
  public ModelFolder withReranker(Reranker reranker) {
    if (reranker == Reranker.NONE) {
      return this;
    }
    String what = "model.reranker = " + reranker.configName() + " reads a " + reranker.family()
        + " causal language model as its card runs it; " + folder;
    if (!family.name().equals(reranker.family()) || !architecture.causal()) {
      throw new WeightsException(what + " holds a " + (architecture.causal() ? ""
          : "bidirectional ") + family.name() + " model");
    }
    if (classifier.isPresent() && classifier.get().perToken()) {
      throw new WeightsException(what + " is a token classifier");
    }
    if (tokenizer.isEmpty()) {
      throw new WeightsException(what + " has no tokenizer.json to find '" + reranker.yes()
          + "' and '" + reranker.no() + "' in");
    }
    Classifier head = classifier.orElse(new Classifier(List.of(reranker.yes()),
        ClassifierHead.Scoring.SIGMOID, new ModelFamily.HeadShape(ClassifierHead.Read.LAST_NOT_PAD,
            ClassifierHead.DenseActivation.NONE, false, -1), false));
    return new ModelFolder(folder, family, positionOffset, shape, architecture, maxSeqLength,
        pooling, normalize, weightFiles, tokenizer,
        Optional.of(head), prompts, dense, splade, stripsTexts, reranker, lateInteraction,
        lowercasesTexts, task, textSuffix);
  }

  /**
   * This folder with the adapter of {@code task} ({@code model.task}) to merge into its weights:
   * one of the folders of {@code adapters/}; "" for a folder without any. Refused in one line,
   * listing the folder's tasks, when the task is not one of them or a folder of tasks is read
   * without one ({@link TaskAdapter#read}).
   */
  public ModelFolder withTask(String task) {
    return new ModelFolder(folder, family, positionOffset, shape, architecture, maxSeqLength,
        pooling, normalize, weightFiles, tokenizer,
        classifier, prompts, dense, splade, stripsTexts, reranker, lateInteraction,
        lowercasesTexts, Optional.ofNullable(TaskAdapter.read(folder, task)), textSuffix);
  }

  /** This folder with {@code suffix} appended to every text before tokenizing. */
  private ModelFolder withTextSuffix(String suffix) {
    return new ModelFolder(folder, family, positionOffset, shape, architecture, maxSeqLength,
        pooling, normalize, weightFiles, tokenizer,
        classifier, prompts, dense, splade, stripsTexts, reranker, lateInteraction,
        lowercasesTexts, task, suffix);
  }

  /** The classification head config.json describes, if its architecture has one. */
  private static Optional<Classifier> classifier(JsonNode config, Path file,
      ModelFamily family) {
    boolean head = false;
    boolean perToken = false;
    for (JsonNode architecture : config.path("architectures")) {
      head |= architecture.asText("").endsWith("ForSequenceClassification");
      perToken |= architecture.asText("").endsWith("ForTokenClassification");
    }
    if (!head && !perToken) {
      return Optional.empty();
    }
    boolean tokens = perToken;
    if (family.names().heads().ofClassifier(tokens).isEmpty()) {
      throw new WeightsException(file + ": architectures " + config.path("architectures")
          + " names a " + (perToken ? "token" : "sequence") + "-classification head, which "
          + "this job reads for " + ModelFamily.Registry.list(ModelFamily.ALL.stream()
              .filter(f -> !f.names().heads().ofClassifier(tokens).isEmpty())
              .map(ModelFamily::name).toList(), "and")
          + " but not for " + family.name());
    }
    List<String> labels = new ArrayList<>();
    JsonNode id2label = config.path("id2label");
    for (int id = 0; id2label.has(String.valueOf(id)); id++) {
      labels.add(id2label.get(String.valueOf(id)).asText());
    }
    if (labels.size() != id2label.size()) {
      throw new WeightsException(file + ": id2label's ids are not 0.." + (id2label.size() - 1));
    }
    JsonNode numLabels = config.path("num_labels");
    if (labels.isEmpty()) {
      int n = numLabels.isMissingNode() ? 2 : numLabels.asInt();   // PretrainedConfig's default
      for (int id = 0; id < n; id++) {
        labels.add("LABEL_" + id);
      }
    } else if (!numLabels.isMissingNode() && numLabels.asInt() != labels.size()) {
      throw new WeightsException(file + ": num_labels = " + numLabels.asInt() + " but id2label "
          + "has " + labels.size() + " labels");
    }
    if (labels.isEmpty()) {
      throw new WeightsException(file + ": a classifier with no label (num_labels = 0)");
    }
    if (perToken) {
      return Optional.of(new Classifier(labels, ClassifierHead.Scoring.SOFTMAX,
          family.headShape(config, file), true));
    }
    String crossEncoder = config.path("sentence_transformers").path("activation_fn")
        .asText(config.path("sbert_ce_default_activation_function").asText(""));
    ClassifierHead.Scoring scoring;
    if (!crossEncoder.isEmpty()) {
      String name = crossEncoder.substring(crossEncoder.lastIndexOf('.') + 1);
      scoring = switch (name) {
        case "Sigmoid" -> ClassifierHead.Scoring.SIGMOID;
        case "Softmax" -> ClassifierHead.Scoring.SOFTMAX;
        case "Identity" -> ClassifierHead.Scoring.NONE;
        default -> throw new WeightsException(file + ": the CrossEncoder activation '"
            + crossEncoder + "' is not supported (Sigmoid, Softmax, Identity)");
      };
    } else {
      boolean multiLabel = config.path("problem_type").asText("")
          .equals("multi_label_classification");
      scoring = multiLabel || labels.size() == 1 ? ClassifierHead.Scoring.SIGMOID
          : ClassifierHead.Scoring.SOFTMAX;
    }
    return Optional.of(new Classifier(labels, scoring, family.headShape(config, file), false));
  }

  /** model.safetensors, or the shards named by model.safetensors.index.json. */
  private static List<Path> weightFiles(Path folder) {
    Path single = folder.resolve("model.safetensors");
    if (Files.isRegularFile(single)) {
      return List.of(single);
    }
    Path index = folder.resolve("model.safetensors.index.json");
    if (Files.isRegularFile(index)) {
      TreeSet<String> shards = new TreeSet<>();
      Iterator<JsonNode> files = json(index).path("weight_map").elements();
      while (files.hasNext()) {
        shards.add(files.next().asText());
      }
      if (shards.isEmpty()) {
        throw new WeightsException(index + " has no weight_map");
      }
      List<Path> paths = new ArrayList<>();
      for (String shard : shards) {
        Path path = shardInside(folder, index, shard);
        if (!Files.isRegularFile(path)) {
          throw new WeightsException(index + " names " + shard + ", which is not in " + folder);
        }
        paths.add(path);
      }
      return paths;
    }
    if (Files.isRegularFile(folder.resolve("pytorch_model.bin"))) {
      throw new WeightsException(folder + " holds only pytorch_model.bin, a pickle, which this "
          + "job does not load (unpickling can run code). Convert it to safetensors once: python "
          + "-c \"from transformers import AutoModel; m = AutoModel.from_pretrained('" + folder
          + "'); m.save_pretrained('" + folder + "', safe_serialization=True)\"");
    }
    throw new WeightsException("No model.safetensors or model.safetensors.index.json in "
        + folder);
  }

  /**
   * Where a shard the index names lies, refused before anything there is opened when it is
   * outside the folder: an absolute path, a path that climbs out ({@code ../other/…}), or one
   * through a folder that links outside. The shard itself may be a link, as a folder's own files
   * are in Hugging Face's cache (each a link to a blob beside the snapshot).
   */
  private static Path shardInside(Path folder, Path index, String shard) {
    return inside(folder, index, "the shard", shard, true);
  }

  /**
   * A module's folder, as modules.json names it: inside the model folder, or refused (an
   * absolute path, one that climbs out). The folder itself may be a link, as a download's files
   * may be; the fingerprint follows it ({@link #modulePaths}).
   */
  static Path moduleInside(Path folder, Path modules, String name) {
    return inside(folder, modules, "the module path", name, false);
  }

  /**
   * {@code name}, which {@code namedIn} names as {@code what}, resolved in {@code folder};
   * refused in one line when it is absolute or climbs out, and, with {@code realParent}, when
   * the folder it lies in is, after links, outside the folder's.
   */
  static Path inside(Path folder, Path namedIn, String what, String name,
      boolean realParent) {
    Path named = Path.of(name);
    Path path = folder.resolve(named).normalize();
    boolean inside = !named.isAbsolute() && path.startsWith(folder.normalize());
    try {
      Path parent = path.getParent();
      inside = inside && (!realParent || !Files.exists(parent)
          || parent.toRealPath().startsWith(folder.toRealPath()));
    } catch (java.io.IOException e) {
      inside = false;
    }
    if (!inside) {
      throw new WeightsException(namedIn + " names " + what + " '" + name + "', which is "
          + "outside the model folder " + folder + "; only the folder's own files are read");
    }
    return path;
  }

  /**
   * The folders of every module modules.json names (its Pooling, Dense and Normalize modules'
   * wherever they are, not only {@code 1_Pooling}-style names), the folder itself left out;
   * empty without modules.json.
   */
  public List<Path> modulePaths() {
    Path modules = folder.resolve("modules.json");
    if (!Files.isRegularFile(modules)) {
      return List.of();
    }
    List<Path> paths = new ArrayList<>();
    for (JsonNode module : json(modules)) {
      Path path = moduleInside(folder, modules, module.path("path").asText(""));
      if (!path.equals(folder.normalize()) && !paths.contains(path)) {
        paths.add(path);
      }
    }
    return paths;
  }

  /** A JSON file of the folder, or a refusal in one line naming it and what is wrong. */
  public static JsonNode json(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new WeightsException(file + " is missing");
    }
    try {
      return JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new WeightsException("Cannot read " + file + ": " + JsonProblem.of(e));
    }
  }

  /**
   * The token of a special role ({@code mask_token}, {@code unk_token}, …) as
   * {@code special_tokens_map.json}, else {@code tokenizer_config.json}, names it.
   */
  public Optional<String> specialToken(String role) {
    for (String name : List.of("special_tokens_map.json", "tokenizer_config.json")) {
      Path file = folder.resolve(name);
      Optional<JsonNode> n = Files.isRegularFile(file) ? ModelFamily.given(json(file), role)
          : Optional.empty();
      if (n.isPresent()) {
        return n.map(token -> token.isTextual() ? token.asText() : token.path("content").asText());
      }
    }
    return Optional.empty();
  }

  /**
   * The id of {@code token} in a tokenizer.json, as transformers' convert_tokens_to_ids finds it:
   * among its added tokens, else in its model's vocabulary ({@code token: id}, or Unigram's
   * {@code [piece, score]} pairs, whose id is their place); -1 when it has none.
   */
  static int tokenId(JsonNode json, String token) {
    for (JsonNode added : json.path("added_tokens")) {
      if (added.path("content").asText().equals(token)) {
        return added.path("id").asInt();
      }
    }
    JsonNode vocab = json.path("model").path("vocab");
    if (vocab.isObject() && vocab.has(token)) {
      return vocab.get(token).asInt();
    }
    if (vocab.isArray()) {
      for (int i = 0; i < vocab.size(); i++) {
        if (vocab.get(i).path(0).asText().equals(token)) {
          return i;
        }
      }
    }
    return -1;
  }
}
