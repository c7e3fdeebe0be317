package io.corpus.encoder.pipeline;

/** What reading one input row gave: a sequence appended to the batch, or why it could not be. */
sealed interface SequenceRead
    permits SequenceRead.Accepted, SequenceRead.Chunks, RejectRule.Rejection {
  /**
   * A row whose tokens are now the batch's last sequence.
   *
   * @param length T of the outputs (token vectors, maps): the row's positions, padding included
   * @param ids the ids of the tokens encoded (the real ones of a padded row), for the
   *     {@code input_ids} column of text input and a decoder classifier's pad rule; null for
   *     embeddings input
   * @param tokens (T) the tokens' strings, for the {@code tokens} column of text input; else null
   * @param typeIds (T) the token type ids, for the {@code token_type_ids} column of text pairs;
   *     else null
   * @param truncated whether the row was longer than the token limit and was cut to it
   * @param chunk which window of its text this sequence is (on-too-long = chunk); else null
   * @param text the text and where each token is in it, when entities are asked for; else null
   * @param prompt the prompt before the text: how much of it pooling leaves out, and whether the
   *     text held one already
   */
  record Accepted(int length, int[] ids, String[] tokens, int[] typeIds, boolean truncated,
      Chunk chunk, TokenText text, Prompt prompt) implements SequenceRead {
    /** A row read whole, with nothing to add to the output. */
    static Accepted of(int length) {
      return new Accepted(length, null, null, null, false, null, null, Prompt.NONE);
    }
  }

  /**
   * What a row's prompt means for its output.
   *
   * @param unpooled positions at the start that mean and max pooling leave out: a prompt the
   *     folder does not pool ({@code include_prompt = false}), with the leading special token
   * @param alreadyHeld whether the text already began with a prompt of the folder (or a label of
   *     a reranker's template) before the job put one there
   */
  record Prompt(int unpooled, boolean alreadyHeld) {
    static final Prompt NONE = new Prompt(0, false);
  }

  /**
   * A text and its tokens' places in it, for entities.
   *
   * @param codePoints the text (without a prompt), as code points
   * @param spans (T) each token's span and whether it is special
   */
  record TokenText(int[] codePoints, io.corpus.encoder.text.TextTokenizer.Spans spans) {}

  /**
   * A window of a text cut into several.
   *
   * @param index 0-based, in the text's order
   * @param start where the window's first content token starts in the text, in code points
   * @param end where its last content token ends, in code points
   * @param count how many windows the text has
   */
  record Chunk(int index, int start, int end, int count) implements java.io.Serializable {
    boolean last() {
      return index == count - 1;
    }
  }

  /**
   * A row whose text became several sequences, one per window, not yet in the batch: the task
   * appends them one by one as its batches have room, so a long document flows through batches
   * of the usual size.
   *
   * @param windows each window's output, in the text's order
   * @param input appends window {@code i}'s tokens to a batch as its last sequence
   * @param late a late-chunked text, whose windows give its token states and whose rows are its
   *     chunks; null: each window is a row
   */
  record Chunks(java.util.List<Accepted> windows, WindowInput input, LateDocument late)
      implements SequenceRead {}

  /** How a window's tokens enter a batch. */
  interface WindowInput {
    void append(int window, io.corpus.encoder.model.TokenBatch batch);
  }
}
