package io.corpus.encoder.cli;

import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The session a job changes its SQL settings on: one of its own ({@link #isolated}), so that a
 * caller's session (a notebook's, a test suite's) is left as it was even while the job runs, and
 * two jobs in one Spark application never see each other's. Nothing is put back when the job
 * ends: no one else reads that session.
 */
final class SessionSettings {
  private SessionSettings() {}

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
}
