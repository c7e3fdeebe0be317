package io.corpus.encoder.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * The slow tier: a test that starts a JVM of its own (a job killed midway, a probe of what a
 * fresh process loads, the interpreter's bits), seconds of cold start each. {@code jobs/test}
 * runs it with the rest; {@code jobs/test --fast} leaves it out, with the cluster tests and the
 * package, for a quick loop while working. A test class that starts a JVM marks it here
 * ({@code SlowTierTest} checks).
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag(Slow.TAG)
public @interface Slow {
  /** The JUnit tag, as Maven's {@code excludedGroups} names it. */
  String TAG = "slow";
}
