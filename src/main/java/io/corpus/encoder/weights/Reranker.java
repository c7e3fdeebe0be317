package io.corpus.encoder.weights;

import io.corpus.encoder.common.ConfigName;
import java.util.List;

/**
 * A causal language model read as a reranker, as its card runs it: each (query, document) pair
 * written into the card's template, each piece of it tokenized on its own, and the score the
 * softmax of the "yes" and "no" logits at the last token, which is sigmoid((lm_head["yes"] −
 * lm_head["no"]) · h): a one-label classifier whose row is that difference (how the
 * {@code -seq-cls} conversions are made).
 */
public enum Reranker implements ConfigName {
  /** The folder is read as it says. */
  NONE("none", "", List.of(), List.of(), List.of(), "", "", ""),
  /**
   * Qwen3-Reranker-0.6B, 4B, 8B ({@code Qwen3ForCausalLM}): its card's system prompt, then the
   * instruction, query and document as one text, then the assistant's empty thinking.
   */
  QWEN3("qwen3", "qwen3",
      List.of("<|im_start|>system\nJudge whether the Document meets the requirements based on "
          + "the Query and the Instruct provided. Note that the answer can only be \"yes\" or "
          + "\"no\".<|im_end|>\n<|im_start|>user\n"),
      List.of(),
      List.of("<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"),
      "Given a web search query, retrieve relevant passages that answer the query", "yes", "no"),
  /**
   * mxbai-rerank-base-v2 and -large-v2 ({@code Qwen2ForCausalLM}), as mixedbread's
   * {@code MxbaiRerankV2} runs them: Qwen's system prompt; {@code query: …} (after
   * {@code instruction: …} and a newline when an instruction is given) and
   * {@code document: …}, each tokenized alone, a newline between; a newline, the relevance task
   * and the assistant's turn; the score the "1" logit less the "0" logit at the last token.
   */
  MXBAI_V2("mxbai-v2", "qwen2",
      List.of("<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful "
          + "assistant.<|im_end|>\n<|im_start|>user\n"),
      List.of("\n"),
      List.of("\n", "You are a search relevance expert who evaluates how well documents match "
          + "search queries. For each query-document pair, carefully analyze the semantic "
          + "relationship between them, then provide your binary relevance judgment (0 for not "
          + "relevant, 1 for relevant).\nRelevance:", "<|im_end|>\n<|im_start|>assistant\n"),
      "", "1", "0");

  private final String configName;
  private final String family;
  private final List<String> prefix;
  private final List<String> middle;
  private final List<String> suffix;
  private final String defaultInstruction;
  private final String yes;
  private final String no;

  Reranker(String configName, String family, List<String> prefix, List<String> middle,
      List<String> suffix, String defaultInstruction, String yes, String no) {
    this.configName = configName;
    this.family = family;
    this.prefix = prefix;
    this.middle = middle;
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

  /** The pieces before the pair's text, each tokenized alone (no special tokens of its own). */
  public List<String> prefix() {
    return prefix;
  }

  /**
   * The pieces between the query's text and the document's, when the two are tokenized apart;
   * empty when the pair is written as one text ({@link #body}).
   */
  public List<String> middle() {
    return middle;
  }

  /** The pieces after it. */
  public List<String> suffix() {
    return suffix;
  }

  /** Whether the query and the document are tokenized apart ({@link #query}, {@link #document}). */
  public boolean apart() {
    return !middle.isEmpty();
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

  /** The query's text where the two are tokenized apart: the instruction, if any, first. */
  public String query(String instruction, String query) {
    String given = instruction.isEmpty() ? defaultInstruction : instruction;
    return (given.isEmpty() ? "" : "instruction: " + given + "\n") + "query: " + query;
  }

  /** The document's text where the two are tokenized apart. */
  public String document(String document) {
    return "document: " + document;
  }
}
