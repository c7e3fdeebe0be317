package io.corpus.encoder.testing;

import io.corpus.encoder.io.NioLocalFileSystem;
import org.apache.spark.sql.SparkSession;

/**
 * The one local SparkSession the whole test suite shares (Surefire runs every class in one JVM):
 * two cores, no UI, few shuffle partitions. Stopped when the JVM exits.
 */
public final class SparkTestSession {
  private static SparkSession session;

  private SparkTestSession() {}

  public static synchronized SparkSession get() {
    if (session == null) {
      session = SparkSession.builder()
          .master("local[2]")
          .appName("corpus-encoder-tests")
          .config("spark.ui.enabled", "false")
          .config("spark.ui.showConsoleProgress", "false")
          .config("spark.sql.shuffle.partitions", "2")
          .config("spark.default.parallelism", "2")
          .config("spark.driver.host", "127.0.0.1")
          .config("spark.driver.bindAddress", "127.0.0.1")
          // local files as the job's session writes them (cli.SparkSessions)
          .config("spark.hadoop." + NioLocalFileSystem.KEY, NioLocalFileSystem.class.getName())
          .getOrCreate();
      session.sparkContext().setLogLevel("WARN");
      Runtime.getRuntime().addShutdownHook(new Thread(session::stop));
    }
    return session;
  }
}
