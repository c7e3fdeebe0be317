package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.weights.ModelFolder.Prompts;
import io.corpus.encoder.weights.ModelFolder.Splade;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a model folder's sentence-transformers files say (modules.json, its modules' configs,
 * sentence_bert_config.json, config_sentence_transformers.json): the pipeline after the
 * Transformer, how texts are prepared, the prompts; PyLate's keys for a ColBERT folder.
 */
record SentenceTransformerFiles(Optional<Integer> maxSeqLength, Optional<Pooling> pooling,
    boolean normalize, Prompts prompts, List<Path> dense, Splade splade, boolean strips,
    Optional<LateInteraction> lateInteraction, boolean lowercases) {

  /** The package of sentence-transformers' own modules, as modules.json names them. */
  private static final String SENTENCE_TRANSFORMERS = "sentence_transformers.";

  /** The pipeline modules.json names; {@code modelConfig} is the folder's config.json. */
  static SentenceTransformerFiles read(Path folder, Path modules, JsonNode modelConfig) {
    if (!Files.isRegularFile(modules)) {
      if (modelConfig.path("architectures").toString().contains("\"HF_ColBERT\"")) {
        throw new WeightsException(folder + " is a Stanford ColBERT checkpoint (HF_ColBERT, no "
            + "modules.json): its projection and settings are not in a sentence-transformers "
            + "pipeline. Load it once with PyLate (models.ColBERT) and save it (save_pretrained"
            + ") to make a PyLate folder this job reads");
      }
      return new SentenceTransformerFiles(Optional.empty(), Optional.empty(), false, Prompts.NONE,
          List.of(), Splade.MAX_RELU, false, Optional.empty(), false);
    }
    Splade splade = Splade.MAX_RELU;
    Optional<Pooling> pooling = Optional.empty();
    boolean normalize = false;
    boolean promptPooled = true;
    boolean strips = false;
    boolean pylateModules = false;
    boolean tokenDense = false;      // a Dense before any Pooling: PyLate's token projection
    List<Path> dense = new ArrayList<>();
    for (JsonNode module : ModelFolder.json(modules)) {
      String type = module.path("type").asText("");
      Path path = ModelFolder.moduleInside(folder, modules, module.path("path").asText(""));
      if (type.endsWith(".Pooling")) {
        Path config = path.resolve("config.json");
        pooling = Optional.of(poolingMode(config));
        promptPooled = ModelFolder.json(config).path("include_prompt").asBoolean(true);
      } else if (type.endsWith(".SpladePooling")) {
        pooling = Optional.of(Pooling.SPLADE);
        splade = splade(path.resolve("config.json"));
      } else if (type.endsWith(".Normalize")) {
        normalize = true;
      } else if (type.endsWith(".Dense")) {
        pylateModules |= type.startsWith("pylate.");
        tokenDense |= pooling.isEmpty();
        if (normalize) {
          throw new WeightsException(modules + ": a Dense module comes before Normalize here; "
              + "this one does not");
        }
        dense.add(path);
      } else if (type.endsWith(".Transformer") || type.endsWith(".MLMTransformer")) {
        strips = type.startsWith(SENTENCE_TRANSFORMERS) || ownModuleStrips(folder, modules,
            type);
      } else if (type.endsWith(".StaticEmbedding")) {
        strips = false;   // its tokenize takes the texts as given
      } else {
        throw new WeightsException(modules + " names the module " + type + ", which this job "
            + "does not run (Transformer, MLMTransformer, StaticEmbedding, Pooling, "
            + "SpladePooling, Dense, Normalize)");
      }
    }
    Path stFile = folder.resolve("sentence_bert_config.json");
    JsonNode st = Files.isRegularFile(stFile) ? ModelFolder.json(stFile)
        : MissingNode.getInstance();
    Optional<Integer> maxSeq = Optional.ofNullable(st.get("max_seq_length"))
        .map(JsonNode::asInt);
    boolean lowercases = strips && st.path("do_lower_case").asBoolean(false);
    Path configFile = folder.resolve("config_sentence_transformers.json");
    JsonNode stConfig = Files.isRegularFile(configFile) ? ModelFolder.json(configFile) : null;
    Optional<LateInteraction> late = LateInteraction.read(stConfig, configFile, dense,
        pylateModules);
    if (late.isPresent() && pooling.isPresent()) {
      throw new WeightsException(modules + " pools its tokens, and " + configFile + " has "
          + "PyLate's keys (a ColBERT folder projects every token and pools none): one or "
          + "the other");
    }
    if (late.isEmpty() && tokenDense) {
      throw new WeightsException(modules + ": a Dense module comes after Pooling here (or "
          + "projects every token in a PyLate folder, whose config_sentence_transformers.json "
          + "has query_prefix and the like); this one does neither");
    }
    return new SentenceTransformerFiles(maxSeq, pooling, normalize,
        prompts(stConfig, promptPooled), late.isPresent() ? List.of() : dense,
        splade, strips, late, lowercases);
  }

  /**
   * Whether a folder's own Transformer module ({@code custom_st.Transformer}, as jina's folders
   * carry one) strips the texts as sentence-transformers' does: its source
   * ({@code custom_st.py} in the folder), read and never run, calls {@code .strip()}, as
   * jina-embeddings-v3's copy of sentence-transformers' tokenize does; jina-embeddings-v5's
   * module calls the tokenizer on the texts as given. Refused in one line when the source is
   * not in the folder.
   */
  private static boolean ownModuleStrips(Path folder, Path modules, String type) {
    String module = type.substring(0, type.lastIndexOf('.'));
    Path source = ModelFolder.inside(folder, modules, "the module source", module.replace('.', '/')
        + ".py", true);
    if (!Files.isRegularFile(source)) {
      throw new WeightsException(modules + " names the folder's own module " + type + ", "
          + "whose source " + source.getFileName() + " is not in " + folder + ": whether it "
          + "strips the texts before tokenizing cannot be told (sentence-transformers' "
          + "Transformer does, jina-embeddings-v5's own module does not)");
    }
    try {
      return Files.readString(source).contains(".strip()");
    } catch (IOException e) {
      throw new WeightsException("Cannot read " + source + ": " + e.getMessage());
    }
  }

  /** A SpladePooling module's config.json (its defaults when absent: max, relu). */
  private static Splade splade(Path config) {
    if (!Files.isRegularFile(config)) {
      return Splade.MAX_RELU;
    }
    JsonNode c = ModelFolder.json(config);
    String strategy = c.path("pooling_strategy").asText("max");
    String activation = c.path("activation_function").asText("relu");
    if (!List.of("max", "sum").contains(strategy)
        || !List.of("relu", "log1p_relu").contains(activation)) {
      throw new WeightsException(config + ": pooling_strategy '" + strategy + "' and "
          + "activation_function '" + activation + "': SpladePooling takes max or sum, and "
          + "relu or log1p_relu");
    }
    return new Splade(strategy.equals("sum"), activation.equals("log1p_relu"));
  }

  /** config_sentence_transformers.json's prompts and default_prompt_name (null: no file). */
  private static Prompts prompts(JsonNode c, boolean pooled) {
    if (c == null) {
      return new Prompts(Map.of(), Optional.empty(), pooled);
    }
    Map<String, String> byName = new LinkedHashMap<>();
    c.path("prompts").fields().forEachRemaining(e -> byName.put(e.getKey(),
        e.getValue().asText()));
    return new Prompts(byName, ModelFamily.given(c, "default_prompt_name")
        .map(JsonNode::asText), pooled);
  }

  private static Pooling poolingMode(Path config) {
    JsonNode c = ModelFolder.json(config);
    List<Pooling> modes = new ArrayList<>();
    if (c.path("pooling_mode_cls_token").asBoolean(false)) {
      modes.add(Pooling.FIRST);
    }
    if (c.path("pooling_mode_mean_tokens").asBoolean(false)) {
      modes.add(Pooling.MEAN);
    }
    if (c.path("pooling_mode_max_tokens").asBoolean(false)) {
      modes.add(Pooling.MAX);
    }
    if (c.path("pooling_mode_lasttoken").asBoolean(false)) {
      modes.add(Pooling.LAST);
    }
    for (String other : List.of("pooling_mode_mean_sqrt_len_tokens",
        "pooling_mode_weightedmean_tokens")) {
      if (c.path(other).asBoolean(false)) {
        throw new WeightsException(config + ": " + other + " is not supported (cls, mean, max, "
            + "lasttoken)");
      }
    }
    if (modes.size() != 1) {
      throw new WeightsException(config + ": expected exactly one pooling mode of cls, mean, "
          + "max and lasttoken, found " + modes.size());
    }
    return modes.get(0);
  }
}
