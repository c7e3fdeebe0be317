package io.corpus.encoder.weights;

import io.corpus.encoder.common.ConfigName;

/**
 * A causal language model read as a reranker, as its model card runs it: each (query, document)
 * pair written into the card's template, and the score the softmax of the "yes" and "no"
 * logits at the last token, which is sigmoid((lm_head["yes"] − lm_head["no"]) · h): a
 * one-label classifier whose row is that difference (how the {@code -seq-cls} conversions are
 * made).
 */
public enum Reranker implements ConfigName {
  /** The folder is read as it says. */
  NONE("none", "", "", "", "", "", ""),
  /**
   * Qwen3-Reranker-0.6B, 4B, 8B ({@code Qwen3ForCausalLM}): its card's system prompt, the
   * instruction, query and document, then the assistant's empty thinking.
   */
  QWEN3("qwen3", "qwen3",
      "<|im_start|>system\nJudge whether the Document meets the requirements based on the Query "
          + "and the Instruct provided. Note that the answer can only be \"yes\" or \"no\"."
          + "<|im_end|>\n<|im_start|>user\n",
      "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
      "Given a web search query, retrieve relevant passages that answer the query", "yes", "no");

  private final String configName;
  private final String family;
  private final String prefix;
  private final String suffix;
  private final String defaultInstruction;
  private final String yes;
  private final String no;

  Reranker(String configName, String family, String prefix, String suffix,
      String defaultInstruction, String yes, String no) {
    this.configName = configName;
    this.family = family;
    this.prefix = prefix;
    this.suffix = suffix;
    this.defaultInstruction = defaultInstruction;
    this.yes = yes;
    this.no = no;
  }

  @Override
  public String configName() {
    return configName;
  }

  /** The family whose causal language models this reads. */
  public String family() {
    return family;
  }

  /** The tokens before the pair's text, as the card adds them (no special tokens of its own). */
  public String prefix() {
    return prefix;
  }

  /** The tokens after it. */
  public String suffix() {
    return suffix;
  }

  /** The token whose logit says the document answers. */
  public String yes() {
    return yes;
  }

  /** The token whose logit says it does not. */
  public String no() {
    return no;
  }

  /**
   * The pair's text between prefix and suffix, as the card's {@code format_instruction} writes
   * it; an empty {@code instruction} is the card's default.
   */
  public String body(String instruction, String query, String document) {
    return "<Instruct>: " + (instruction.isEmpty() ? defaultInstruction : instruction)
        + "\n<Query>: " + query + "\n<Document>: " + document;
  }
}
