package io.corpus.encoder.pipeline;

/** An input row that breaks a {@link RejectRule}, under {@code handleInvalid = error}. */
public final class InvalidRowException extends IllegalArgumentException {
  private final String rowId;
  private final transient RejectRule.Rejection rejection;

  public InvalidRowException(String rowId, RejectRule.Rejection rejection) {
    super("Invalid input row id=" + rowId + ": " + rejection);
    this.rowId = rowId;
    this.rejection = rejection;
  }

  public String rowId() {
    return rowId;
  }

  public RejectRule.Rejection rejection() {
    return rejection;
  }
}
