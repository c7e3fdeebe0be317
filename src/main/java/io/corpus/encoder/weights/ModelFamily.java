package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.model.ClassifierHead;
import java.nio.file.Path;
import java.util.List;

/**
 * What differs between the encoder families a Hugging Face folder may hold, each one class: the
 * {@code model_type} values it reads, the prefix its task checkpoints put before the encoder's
 * tensors, where its positions start, whether token types reach the model, and its
 * sequence-classification head. The layers themselves are BERT's in both families here.
 */
public interface ModelFamily {
  /** The name run summaries and errors give the family. */
  String name();

  /** The prefix of the encoder's tensors in a task checkpoint ({@code bert.}, {@code roberta.}). */
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

  /** The names of the classifier head's tensors: dense weight, dense bias, out weight, out bias. */
  List<String> headTensors();

  /** The head: dense (E, E) + tanh on the first token's state, then out (labels, E). */
  default ClassifierHead head(TensorNaming.TensorSource read, int width, int labels,
      ModelFolder.Classifier classifier) {
    List<String> t = headTensors();
    return new ClassifierHead(read.take(t.get(0), width, width), read.take(t.get(1), width),
        read.take(t.get(2), labels, width), read.take(t.get(3), labels), classifier.labels(),
        classifier.scoring());
  }

  /** BERT (BGE, E5, MiniLM, …): {@code model_type} bert. */
  ModelFamily BERT = new Bert();
  /** XLM-RoBERTa and RoBERTa: {@code model_type} xlm-roberta or roberta. */
  ModelFamily ROBERTA = new Roberta();

  /** What {@code model_type} names, or a refusal naming it and the families supported. */
  static ModelFamily of(JsonNode config, Path file) {
    String type = config.path("model_type").asText("");
    return switch (type) {
      case "bert" -> BERT;
      case "xlm-roberta", "roberta" -> ROBERTA;
      default -> throw new WeightsException(file + ": model_type '" + type + "' is not "
          + "supported; this job runs bert (BERT, BGE, E5, MiniLM) and xlm-roberta or roberta "
          + "(multilingual-e5, paraphrase-multilingual, bge-m3) folders");
    };
  }
}
