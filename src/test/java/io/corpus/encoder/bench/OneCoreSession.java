package io.corpus.encoder.bench;

import org.apache.spark.sql.SparkSession;

/** The session the benchmarks' small helpers read and write tables with: one core, no web UI. */
final class OneCoreSession {
  private OneCoreSession() {}

  static SparkSession start(String appName) {
    return SparkSession.builder().master("local[1]").appName(appName)
        .config("spark.ui.enabled", "false").getOrCreate();
  }
}
