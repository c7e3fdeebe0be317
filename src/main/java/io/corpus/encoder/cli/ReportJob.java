package io.corpus.encoder.cli;

import io.corpus.encoder.config.EnvironmentValues;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.config.SettingsParser;
import io.corpus.encoder.io.OutputLock;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.spark.sql.SparkSession;

/**
 * {@code jobs/report --config FILE [--compare OTHER_OUTPUT]}: (re)writes report/index.html in the
 * output folder of a job that has run with that config (its head-stats/, attention/ and the
 * rest), without running the model; with {@code --compare}, beside another run of the same rows
 * (per-head differences, the cosine of each row's two vectors).
 */
public final class ReportJob {
  private ReportJob() {}

  public static void main(String[] args) {
    boolean compares = args.length == 4 && args[2].equals("--compare");
    if ((args.length != 2 && !compares) || !args[0].equals("--config")) {
      System.err.println("usage: jobs/report --config FILE [--compare OTHER_OUTPUT]");
      System.exit(2);
    }
    // a local folder as given, from the working directory; a URI (hdfs://, s3a://) as it is
    String other = !compares ? null : args[3].contains("://") ? args[3]
        : Path.of(args[3]).toAbsolutePath().normalize().toString();
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
            "Output " + settings.output().path() + (other == null ? "" : ", compared with "
                + other), other);
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
