package io.corpus.encoder.weights;

/** A weights file that cannot be used; the message names the file, tensor and problem. */
public final class WeightsException extends RuntimeException {
  public WeightsException(String message) {
    super(message);
  }

  public WeightsException(String message, Throwable cause) {
    super(message, cause);
  }
}
