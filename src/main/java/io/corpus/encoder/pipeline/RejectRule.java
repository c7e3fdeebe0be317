package io.corpus.encoder.pipeline;

/** Why an input row cannot be encoded; the name is what {@code reject_rule} holds. */
public enum RejectRule {
  NULL_ID("null-id"),
  NULL_EMBEDDINGS("null-embeddings"),
  EMPTY_EMBEDDINGS("empty-embeddings"),
  NULL_TOKEN("null-token"),
  WRONG_WIDTH("wrong-width"),
  NON_FINITE("non-finite"),
  TOO_LONG("too-long"),
  BAD_MASK("bad-mask"),
  NO_REAL_TOKEN("no-real-token"),
  NULL_TEXT("null-text"),
  NO_TOKEN("no-token"),
  INVALID_UTF8("invalid-utf8"),
  NULL_IDS("null-ids"),
  EMPTY_IDS("empty-ids"),
  BAD_TOKEN_ID("bad-token-id"),
  BAD_TYPE_ID("bad-type-id");

  private final String ruleName;

  RejectRule(String ruleName) {
    this.ruleName = ruleName;
  }

  public String ruleName() {
    return ruleName;
  }

  /** A rejection of one row under this rule, with a detail that names the offending value. */
  public Rejection because(String detail) {
    return new Rejection(this, detail);
  }

  /** One row's rejection: the rule broken and the offending value. */
  public record Rejection(RejectRule rule, String detail) implements SequenceRead {
    @Override
    public String toString() {
      return rule.ruleName + ": " + detail;
    }
  }
}
