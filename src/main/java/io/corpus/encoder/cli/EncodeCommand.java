package io.corpus.encoder.cli;

import io.corpus.encoder.config.EnvironmentValues;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.config.SettingsParser;
import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.kernel.Float32Products;
import io.corpus.encoder.kernel.OneDnn;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.kernel.RowMajorBlas;
import io.corpus.encoder.kernel.VectorApi;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.WarmUp;
import io.corpus.encoder.pipeline.LoadedModel;
import io.corpus.encoder.weights.WeightsMemory;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The encode command line ({@code jobs/encode}, {@link EncodeJob#main}): argument parsing,
 * the model loaded while Spark starts, one-line errors, exit codes.
 */
final class EncodeCommand {
  private static final Logger LOG = LoggerFactory.getLogger(EncodeCommand.class);

  private final PrintStream out;
  private final PrintStream err;

  EncodeCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  int run(String[] args) {
    long start = System.nanoTime();
    String config = null;
    boolean verbose = false;
    boolean check = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--config" -> config = i + 1 < args.length ? args[++i] : null;
        case "--verbose" -> verbose = true;
        case "--check" -> check = true;
        case "--help", "-h" -> {
          out.println("usage: jobs/encode --config FILE [--check] [--verbose]");
          return 0;
        }
        default -> {
          err.println("error: unknown argument '" + args[i] + "'; usage: jobs/encode --config "
              + "FILE [--check] [--verbose]");
          return 2;
        }
      }
    }
    if (config == null) {
      err.println("error: --config FILE is required");
      return 2;
    }
    EnvironmentValues environment = SettingsParser.environmentValues(Path.of(config));
    SparkSession spark = null;
    SessionStart starting = null;
    try {
      JobSettings settings = SettingsParser.parseFile(Path.of(config));
      VectorApi.checkProperty();
      settings.weights().precision().loadInBackground();
      if (!check) {
        // Spark starts while this thread checks the paths and loads the model; a job refused
        // before it runs no Spark job.
        // Spark ML's SQL functions only for the report's corpus map
        starting = new SessionStart("corpus-encoder", settings.output().report().enabled());
        UpdatePlan.prepareInputHash(settings.input());
      }
      Preflight.Found found = Preflight.beforeModel(settings, check);
      if (check && settings.weights().isFolder()) {
        // before any tensor is read: a model too large for this heap is still described
        out.println("weights by their headers: "
            + WeightsMemory.headerEstimate(settings.modelFolder()));
      }
      BackgroundTask<String> fingerprint = check ? null
          : UpdatePlan.fingerprintBesideTheLoad(settings);
      Preflight.readTokenizerAhead(settings);
      LoadedModel model = EncodeJob.loadModel(settings);
      Preflight.Tokenizer tokenizer = Preflight.withModel(settings, model);
      if (check) {
        if (settings.output().mode() == JobSettings.OutputMode.UPDATE) {
          UpdatePlan.checkBeforeStart(settings, model);
        }
        out.println(environment.redact(Checks.describe(settings, model, found, tokenizer,
            (System.nanoTime() - start) / 1e9)));
        return 0;
      }
      EncoderWeights w = model.weights().encoder();
      double loaded = (System.nanoTime() - start) / 1e9;
      out.println(w.layerCount() == 0
          ? String.format("static embeddings: %s, loaded in %.1f s", Checks.staticTable(model),
              loaded)
          : String.format("encoder: %d layers, E=%d, H=%d, F=%d, %,d parameters, loaded in "
              + "%.1f s; BLAS %s%s", w.layerCount(), w.width(), settings.model().heads(),
              w.ffnWidth(), model.parameters(), loaded,
              RowMajorBlas.implementation(), model.weights().precision() == Precision.FLOAT32
                  ? "; " + Float32Products.describe()
                  : "; " + model.weights().precision().configName() + " products on "
                  + OneDnn.describe() + String.format(", encoder layers %.1f MB",
                      model.weights().encoder().bytes() / 1e6)));
      Map<String, Object> reuseKey = UpdatePlan.reuseKey(settings, model, fingerprint.get());
      if (SparkSessions.runsLocally() && w.layerCount() > 0) {   // beside Spark's start
        new BackgroundTask<Void>("kernel-warm-up", "the kernels were warmed up", () -> {
          warmUp(model);
          return null;
        });
      }
      spark = starting.get();
      RunSummary summary = new EncodeJob(spark, settings, model, reuseKey, start).run(out);
      out.println(environment.redact(doneLine(summary, settings.output().path(),
          settings.output().report().enabled())));
      return 0;
    } catch (Exception e) {   // Spark's own SparkException is checked, but thrown unchecked
      err.println("error: " + environment.redact(Errors.describe(e)));
      if (verbose) {
        e.printStackTrace(err);
      }
      return 1;
    } finally {
      if (spark == null && starting != null) {   // refused: the error is out, no waiting
        starting.abandon();
      } else if (spark != null && !starting.sessionExisted()) {
        spark.stop();   // only a session this run started: a caller's stays up
      }
    }
  }

  /**
   * The kernels compiled while Spark starts, for the tasks that share this JVM ({@link
   * WarmUp}, once a JVM and precision), on a thread of its own that nothing waits for; a pass
   * that fails is only logged, the job goes on without it.
   */
  private static void warmUp(LoadedModel model) {
    long begin = System.nanoTime();
    try {
      int tokens = WarmUp.once(model.settings(), model.weights().encoder());
      if (tokens == 0) {
        LOG.info("kernels warmed up by an earlier job in this JVM");
      } else {
        LOG.info("kernels warmed up on {} synthetic tokens in {} s", tokens,
            String.format("%.2f", (System.nanoTime() - begin) / 1e9));
      }
    } catch (RuntimeException e) {
      LOG.warn("kernel warm-up skipped: {}", e.toString());
    }
  }

  /** What the job did, in one line: counts, time, and where its output and report are. */
  static String doneLine(RunSummary summary, String path, boolean report) {
    return String.format("done: %,d rows read, %,d written, %,d rejected%s, %,d truncated, %s%,d "
        + "tokens in %.1f s (forward pass %.1f task-seconds) -> %s%s", summary.rowsRead(),
        summary.rowsWritten(), summary.rowsRejected(), summary.rejectedByRule().isEmpty() ? ""
            : " " + summary.rejectedByRule(), summary.rowsTruncated(),
        summary.duplicateIds() == 0 ? "" : String.format("%,d ids on more than one row, ",
            summary.duplicateIds()), summary.tokens(),
        summary.seconds(), summary.forwardSeconds(), path,
        report ? "; report " + path.replaceAll("/+$", "")
            + "/report/index.html" : "");
  }
}
