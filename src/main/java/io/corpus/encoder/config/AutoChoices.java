package io.corpus.encoder.config;

import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.weights.ModelFolder;
import io.corpus.encoder.weights.WeightsException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The settings whose default is "auto", resolved in one place: the pooling, whether to
 * normalize, and the prompt, each from what a model folder's sentence-transformers files say
 * (or a plain default without a folder). The job's parser and the Transformer both ask here.
 */
public final class AutoChoices {
  private AutoChoices() {}

  /**
   * The prompt a job uses, as sentence-transformers' encode chooses it.
   *
   * @param name the folder's name for it, or "" for a text given as is or no prompt
   * @param text what goes before every text ("" = none)
   */
  public record Prompt(String name, String text) {
    public static final Prompt NONE = new Prompt("", "");

    /** As a run summary describes it: {@code prompt_name} (null for none) and {@code prompt}. */
    public Map<String, Object> described() {
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("prompt_name", name.isEmpty() ? null : name);
      d.put("prompt", text);
      return d;
    }
  }

  /** What the input is, for a prompt: it goes before single texts only. */
  public enum PromptUse { SINGLE_TEXTS, TEXT_PAIRS, TEXT_CHUNKS, NO_TEXT }

  /**
   * The prompt of {@code text} (given when {@code textGiven}, "" included, which turns the
   * folder's default off) or {@code name}, else the folder's prompt named as its task
   * ({@code model.task}: jina-embeddings-v3's cards encode with {@code task=t, prompt_name=t}),
   * else the folder's prompt for the role, as
   * sentence-transformers' encode_query ({@code query}) and encode_document ({@code document},
   * else {@code passage}, else {@code corpus}) pick it, else its default_prompt_name. Refuses both,
   * a name the folder does not have (listing those it has), a prompt asked for where it does not
   * go (text pairs, token ids or vectors), and any prompt for texts cut into windows (only the
   * first window would hold it); a folder's default is not used for pairs, ids or vectors.
   *
   * @param settings the two settings' names for messages ({@code input.prompt},
   *     {@code input.prompt-name})
   */
  public static Prompt prompt(String text, boolean textGiven, String name, boolean query,
      ModelFolder folder, PromptUse use, String[] settings) {
    if (textGiven && !name.isEmpty()) {
      throw new WeightsException("Set " + settings[0] + " or " + settings[1] + ", not both");
    }
    boolean asked = (textGiven && !text.isEmpty()) || !name.isEmpty();
    if (asked && (use == PromptUse.TEXT_PAIRS || use == PromptUse.NO_TEXT)) {
      throw new WeightsException((textGiven ? settings[0] : settings[1]) + " goes before single "
          + "texts; " + (use == PromptUse.TEXT_PAIRS ? "text pairs" : "token ids and vectors")
          + " take no prompt");
    }
    if (use == PromptUse.TEXT_PAIRS || use == PromptUse.NO_TEXT) {
      return Prompt.NONE;
    }
    Prompt prompt = chosen(text, textGiven, name, query, folder, settings);
    if (use == PromptUse.TEXT_CHUNKS && !prompt.text().isEmpty()) {
      throw new WeightsException("The prompt '" + prompt.text() + "'" + (prompt.name().isEmpty()
          ? "" : " (" + prompt.name() + ")") + " would go before a whole text, and with "
          + "on-too-long = chunk only its first window would hold it; set " + settings[0]
          + " = \"\" to encode the windows without one");
    }
    return prompt;
  }

  private static Prompt chosen(String text, boolean textGiven, String name, boolean query,
      ModelFolder folder, String[] settings) {
    if (textGiven) {
      return text.isEmpty() ? Prompt.NONE : new Prompt("", text);
    }
    ModelFolder.Prompts prompts = folder == null ? ModelFolder.Prompts.NONE
        : folder.prompts();
    if (!name.isEmpty()) {
      String found = prompts.byName().get(name);
      if (found == null) {
        throw new WeightsException(settings[1] + " = " + name + " is not a prompt of "
            + (folder == null ? "the model (a model folder's config_sentence_transformers.json "
                + "names them)" : folder.folder().resolve("config_sentence_transformers.json")
                + "; its prompts: " + new TreeSet<>(prompts.byName().keySet())));
      }
      return new Prompt(name, found);
    }
    String task = folder == null ? "" : folder.task().map(t -> t.task()).orElse("");
    if (prompts.byName().containsKey(task)) {   // jina-v3's card: encode(task=t, prompt_name=t)
      return new Prompt(task, prompts.byName().get(task));
    }
    for (String role : query ? List.of("query") : List.of("document", "passage", "corpus")) {
      if (prompts.byName().containsKey(role)) {
        return new Prompt(role, prompts.byName().get(role));
      }
    }
    return prompts.defaultName().filter(prompts.byName()::containsKey)
        .map(n -> new Prompt(n, prompts.byName().get(n))).orElse(Prompt.NONE);
  }

  /**
   * A pooling setting: "auto" is the folder's 1_Pooling mode, else mean (and mean without a
   * folder). A causal language model without sentence-transformers modules is refused under
   * "auto": nothing says its states make a vector, and such a folder is often a reranker
   * (Qwen3-Reranker) that reads its language-model head's logits instead. A decoder's sequence
   * classifier pools its last token.
   */
  public static Pooling pooling(String setting, ModelFolder folder) {
    if (!setting.equals("auto")) {
      return Pooling.fromConfigName(setting);
    }
    if (folder == null) {
      return Pooling.MEAN;
    }
    if (folder.pooling().isPresent()) {
      return folder.pooling().get();
    }
    if (folder.lateInteraction().isPresent()) {
      return Pooling.NONE;   // a PyLate ColBERT folder: a vector per token, none for the text
    }
    if (folder.classifier().map(ModelFolder.Classifier::perToken).orElse(false)) {
      return Pooling.NONE;   // a token classifier labels tokens: no sentence vector unless asked
    }
    if (folder.architecture().causal() && folder.classifier().isPresent()) {
      return Pooling.LAST;   // a decoder's classifier: the last token's state, which it scores
    }
    if (folder.architecture().causal()) {
      throw new WeightsException(folder.folder() + " holds a causal language model ("
          + folder.family().name() + ") with no sentence-transformers modules.json to say how "
          + "its states make one vector; a reranker such as Qwen3-Reranker scores with its "
          + "language-model head's yes/no logits: to score text pairs as its card does, set "
          + "model.reranker = qwen3 with input.text-pair-columns. To encode its states "
          + "anyway, set the pooling (output.pooling) to last or mean");
    }
    return Pooling.MEAN;
  }

  /**
   * A normalize setting: "auto" is whether the folder's pipeline ends in Normalize, for a dense
   * {@code pooling} (a sparse vector is not normalized).
   */
  public static boolean normalize(String setting, ModelFolder folder, Pooling pooling) {
    return switch (setting) {
      case "auto" -> pooling.dense() && folder != null && folder.normalize();
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("normalize = '" + setting + "' is not one "
          + "of auto, true, false");
    };
  }

  /**
   * Whether bge-m3's lexical weights are written: lexical needs a folder with
   * {@code sparse_linear.pt} and goes with any pooling but SPLADE's (both write the sparse
   * columns); auto is lexical when the folder has the file and SPLADE is not asked for.
   */
  public static boolean lexical(String setting, ModelFolder folder, Pooling pooling) {
    boolean has = folder != null && folder.has(ModelFolder.SPARSE_LINEAR);
    return switch (setting) {
      case "auto" -> has && pooling != Pooling.SPLADE;
      case "none" -> false;
      case "lexical" -> {
        if (!has) {
          throw new WeightsException("output.sparse = lexical needs a model folder with "
              + ModelFolder.SPARSE_LINEAR + " beside its checkpoint, as bge-m3 has"
              + (folder == null ? "" : "; " + folder.folder() + " has none"));
        }
        if (pooling == Pooling.SPLADE) {
          throw new WeightsException("output.sparse = lexical and output.pooling = splade both "
              + "write sparse_indices and sparse_values: choose one");
        }
        yield true;
      }
      default -> throw new IllegalArgumentException("sparse = '" + setting + "' is not one of "
          + "auto, none, lexical");
    };
  }

  /**
   * Whether ColBERT vectors are written: colbert needs a PyLate folder or
   * {@code colbert_linear.pt}; auto: colbert for a PyLate folder.
   */
  public static boolean multiVector(String setting, ModelFolder folder) {
    boolean pylate = folder != null && folder.lateInteraction().isPresent();
    return switch (setting) {
      case "auto" -> pylate;
      case "none" -> false;
      case "colbert" -> {
        if (!pylate && (folder == null || !folder.has(ModelFolder.COLBERT_LINEAR))) {
          throw new WeightsException("output.multi-vector = colbert needs a PyLate ColBERT "
              + "folder or a model folder with " + ModelFolder.COLBERT_LINEAR + " beside its "
              + "checkpoint, as bge-m3 has" + (folder == null ? "" : "; " + folder.folder()
              + " is neither"));
        }
        yield true;
      }
      default -> throw new IllegalArgumentException("multi-vector = '" + setting + "' is not "
          + "one of auto, none, colbert");
    };
  }
}
