package io.corpus.encoder.testing;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Brings the shared session up before any test class runs (registered for every class through
 * {@code META-INF/services}). A job run in this JVM takes the session that is up; with none, it
 * starts one and stops it when it ends, under a class running beside it that had taken that
 * session for the shared one.
 */
public final class SharedSessionFirst implements BeforeAllCallback {
  @Override
  public void beforeAll(ExtensionContext context) {
    SparkTestSession.get();
  }
}
