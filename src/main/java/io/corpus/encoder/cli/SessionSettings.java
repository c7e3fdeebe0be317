package io.corpus.encoder.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;

/**
 * Session settings a job changes for its own run and puts back as it found them when it ends.
 * The job changes them on a session of its own ({@link #isolated}), so that a caller's session
 * (a notebook's, a test suite's) is left as it was even while the job runs, and two jobs in one
 * Spark application never see each other's.
 */
final class SessionSettings implements AutoCloseable {
  private final SparkSession spark;
  private final Map<String, Optional<String>> before = new LinkedHashMap<>();

  private SessionSettings(SparkSession spark) {
    this.spark = spark;
  }

  static SessionSettings of(SparkSession spark) {
    return new SessionSettings(spark);
  }

  /**
   * A session of the caller's application (its SparkContext, its cached data) with the SQL
   * settings the caller has changed at run time ({@code spark.conf().set}, a notebook's
   * codec, say) and SQL settings of its own from then on.
   */
  static SparkSession isolated(SparkSession caller) {
    SparkSession own = caller.newSession();
    Map<String, String> callers = scala.jdk.javaapi.CollectionConverters.asJava(
        caller.conf().getAll());
    Map<String, String> owns = scala.jdk.javaapi.CollectionConverters.asJava(
        own.conf().getAll());
    callers.forEach((key, value) -> {
      if (!value.equals(owns.get(key)) && own.conf().isModifiable(key)) {
        own.conf().set(key, value);
      }
    });
    return own;
  }

  /** Sets {@code key} for this job, remembering its value before the first change. */
  void set(String key, String value) {
    before.computeIfAbsent(key, k -> Optional.ofNullable(spark.conf().getOption(k).getOrElse(
        () -> null)));
    spark.conf().set(key, value);
  }

  @Override
  public void close() {
    before.forEach((key, value) -> {
      if (value.isPresent()) {
        spark.conf().set(key, value.get());
      } else {
        spark.conf().unset(key);
      }
    });
    before.clear();
  }
}
