package io.corpus.encoder.pipeline;

import io.corpus.encoder.config.JobSettings.OnAlreadyPrompted;
import io.corpus.encoder.text.PromptPrefixes;
import java.io.Serializable;

/**
 * What may already stand at the start of the texts the job puts a prompt before: for single
 * texts the prompt itself and every other prompt the folder declares; for a reranker's pairs the
 * labels of its template, before the query and before the document. Made on the driver from the
 * resolved prompt and the folder ({@code EncoderTransformer.heldPrompts}); read by the tasks and
 * by the sample the checks before Spark take.
 *
 * @param text what the text (a pair's query) may begin with
 * @param pair what a pair's document may begin with; empty for single texts
 * @param onHeld what a row whose text holds one gets
 */
public record HeldPrompts(PromptPrefixes text, PromptPrefixes pair, OnAlreadyPrompted onHeld)
    implements Serializable {
  /** The prefix the first text holds, else the one the second holds; null for neither. */
  public PromptPrefixes.Prefix heldBy(String first, String second) {
    PromptPrefixes.Prefix held = first == null ? null : text.heldBy(first);
    return held != null || second == null ? held : pair.heldBy(second);
  }

  /** What the prefixes are, for messages: "a prompt of the folder", or a template's label. */
  public String what() {
    return template() ? "a label of the reranker's template" : "a prompt of the folder";
  }

  /** How to choose, for messages that found such texts. */
  public String choices() {
    return template() ? "strip the label from the column, or set input.on-already-prompted = "
        + "skip-prompt to write the template's labels only before texts that hold none"
        : "set input.prompt = \"\" to put no prompt before any text, or keep it and strip the "
        + "prefix from the column (input.on-already-prompted = skip-prompt puts it only before "
        + "texts that hold none)";
  }

  /**
   * The job's one log line for {@code rows} rows (some) whose text held one: what they held and
   * what they got.
   */
  public String warning(long rows) {
    String looked = java.util.stream.Stream.concat(text.prefixes().stream(),
        pair.prefixes().stream()).map(PromptPrefixes.Prefix::shown)
        .collect(java.util.stream.Collectors.joining(", "));
    return String.format("%,d rows encoded already began with %s (one of %s) ", rows, what(),
        looked) + (onHeld == OnAlreadyPrompted.SKIP_PROMPT
            ? "and were encoded as given, without one put before them again "
                + "(input.on-already-prompted = skip-prompt)"
            : "and got " + (template() ? "the template's label" : "the prompt")
                + " before it once more; " + choices());
  }

  /** Whether these are a reranker's template labels, not prompts. */
  public boolean template() {
    return !pair.isEmpty();
  }
}
