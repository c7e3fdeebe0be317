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
  NONE("none", "", List.of(), List.of(), List.of(), List.of(), "", "", "", ""),
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
      List.of("<Instruct>: ", "<Query>: "), "<Document>: ",
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
      List.of("instruction: ", "query: "), "document: ", "", "1", "0");

  /** As a label count: every label of a part of the template, as the card writes it. */
  public static final int EVERY_LABEL = Integer.MAX_VALUE;

  private final String configName;
  private final String family;
  private final List<String> prefix;
  private final List<String> middle;
  private final List<String> suffix;
  private final List<String> queryLabels;
  private final String documentLabel;
  private final String defaultInstruction;
  private final String yes;
  private final String no;

  Reranker(String configName, String family, List<String> prefix, List<String> middle,
      List<String> suffix, List<String> queryLabels, String documentLabel,
      String defaultInstruction, String yes, String no) {
    this.configName = configName;
    this.family = family;
    this.prefix = prefix;
    this.middle = middle;
    this.suffix = suffix;
    this.queryLabels = queryLabels;
    this.documentLabel = documentLabel;
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
   * The labels written before the query's text, in order: the instruction's (written only with
   * an instruction), then the query's. A query that already begins with label {@code i} takes
   * only the parts before it ({@link #query}'s {@code labels} = i).
   */
  public List<String> queryLabels() {
    return queryLabels;
  }

  /** The label written before the document's text. */
  public String documentLabel() {
    return documentLabel;
  }

  /**
   * The pair's text between prefix and suffix, as the card's {@code format_instruction} writes
   * it; an empty {@code instruction} is the card's default. {@code queryLabels} and
   * {@code documentLabels} say how many of each part's labels are written
   * ({@link #EVERY_LABEL}: all, as the card does).
   */
  public String body(String instruction, String query, int queryLabels, String document,
      int documentLabels) {
    return query(instruction, query, queryLabels) + "\n" + document(document, documentLabels);
  }

  /**
   * The query's text: {@code instruction: …} and a newline where there is an instruction (the
   * card's when {@code instruction} is empty), then {@code query: …}, in this template's labels;
   * only the first {@code labels} of the two.
   */
  public String query(String instruction, String query, int labels) {
    String given = instruction.isEmpty() ? defaultInstruction : instruction;
    return (labels > 0 && !given.isEmpty() ? queryLabels.get(0) + given + "\n" : "")
        + (labels > 1 ? queryLabels.get(1) : "") + query;
  }

  /** The document's text: its label (unless {@code labels} is 0), then the document. */
  public String document(String document, int labels) {
    return (labels > 0 ? documentLabel : "") + document;
  }
}
