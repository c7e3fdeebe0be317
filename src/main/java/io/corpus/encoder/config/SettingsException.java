package io.corpus.encoder.config;

/** A setting that cannot be used; the message names the key and what it allows. */
public final class SettingsException extends RuntimeException {
  public SettingsException(String message) {
    super(message);
  }
}
