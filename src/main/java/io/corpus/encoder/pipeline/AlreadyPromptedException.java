package io.corpus.encoder.pipeline;

import io.corpus.encoder.text.PromptPrefixes;

/**
 * A row whose text already begins with the prompt the job would put before it (or another of
 * the folder's, or a label of a reranker's template), under {@code input.on-already-prompted =
 * fail}.
 */
public final class AlreadyPromptedException extends IllegalArgumentException {
  AlreadyPromptedException(String rowId, PromptPrefixes.Prefix held, HeldPrompts prompts) {
    super("input.on-already-prompted = fail: the text of row id=" + rowId + " already begins "
        + "with " + held.shown() + ", " + (prompts.template()
            ? "a label the reranker's template writes "
            : "a prompt of the folder, and the job would put one ") + "before it; "
        + prompts.choices());
  }
}
