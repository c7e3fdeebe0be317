package io.corpus.encoder.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;

/**
 * Session settings a job changes for its own run and puts back as it found them when it ends, so
 * that a caller's session (a notebook's, a test suite's) is left as it was.
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
