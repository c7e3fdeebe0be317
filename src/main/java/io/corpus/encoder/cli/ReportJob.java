package io.corpus.encoder.cli;

import io.corpus.encoder.config.EnvironmentValues;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.config.SettingsParser;
import io.corpus.encoder.io.OutputLock;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.spark.sql.SparkSession;

/**
 * {@code jobs/report --config FILE}: (re)writes report/index.html in the output folder of a job
 * that has run with that config (its head-stats/ and attention/), without running the model.
 */
public final class ReportJob {
  private ReportJob() {}

  public static void main(String[] args) {
    if (args.length != 2 || !args[0].equals("--config")) {
      System.err.println("usage: jobs/report --config FILE");
      System.exit(2);
    }
    SparkSession spark = null;
    EnvironmentValues environment = SettingsParser.environmentValues(Path.of(args[1]));
    try {
      JobSettings settings = SettingsParser.parseFile(Path.of(args[1]));
      spark = SparkSessions.forJob("corpus-encoder-report");
      org.apache.hadoop.fs.Path output = new org.apache.hadoop.fs.Path(settings.output().path());
      // The output's lock, as a job takes it: no job swaps the folder while the page is written.
      try (OutputLock lock = OutputLock.acquire(output.getFileSystem(
          spark.sparkContext().hadoopConfiguration()), output, "report-" + UUID.randomUUID())) {
        String page = AttentionReport.write(spark, settings.output().path(), settings,
            "Output " + settings.output().path());
        System.out.println("report: " + environment.redact(page));
      }
    } catch (Exception e) {
      System.err.println("error: " + environment.redact(Errors.describe(e)));
      System.exit(1);
    } finally {
      if (spark != null) {
        spark.stop();
      }
    }
  }
}
