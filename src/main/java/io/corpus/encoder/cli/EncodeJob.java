package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.col;

import io.corpus.encoder.config.InputKind;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.io.KeptPieces;
import io.corpus.encoder.io.OutputFolder;
import io.corpus.encoder.io.ParquetFooters;
import io.corpus.encoder.io.ParquetFooters.RowGroup;
import io.corpus.encoder.io.ParquetInput;
import io.corpus.encoder.io.QuantizeRanges;
import io.corpus.encoder.io.ReaderBatch;
import io.corpus.encoder.io.RowWeight;
import io.corpus.encoder.io.RunSummary;
import io.corpus.encoder.io.SplitPlan;
import io.corpus.encoder.kernel.Float32Products;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.kernel.PrecisionCalibration;
import io.corpus.encoder.kernel.RowMajorBlas;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.Quantization;
import io.corpus.encoder.model.Shapes;
import io.corpus.encoder.pipeline.EncodeMetrics;
import io.corpus.encoder.pipeline.EncoderTransformer;
import io.corpus.encoder.pipeline.LoadedModel;
import io.corpus.encoder.pipeline.RejectedRows;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code jobs/encode --config FILE}: reads Parquet, runs the encoder, writes {@code embeddings/},
 * {@code rejects/}, optionally {@code attention/}, and {@code run-summary.json}, all committed
 * together. Settings and weights are checked before Spark starts.
 */
public final class EncodeJob {
  private static final Logger LOG = LoggerFactory.getLogger(EncodeJob.class);
  /** Input splits aimed at per task slot, so that unequal splits still even out. */
  private static final int PARTITIONS_PER_SLOT = 4;
  /** Attention's rate per multiply-add against the dense products' ({@link #rowWeight}). */
  private static final double ATTENTION_SLOWDOWN = 10;

  private final SparkSession spark;
  private final JobSettings settings;
  private final LoadedModel model;
  private final Map<String, Object> reuseKey;
  private final long startNanos;
  private final JobPhases phases;
  private Quantization.Ranges quantizeRanges;   // int8 and uint8's, once known

  /**
   * {@code reuseKey}: {@link UpdatePlan#reuseKey} of these settings and model. The job runs on a
   * session of {@code spark}'s application with SQL settings of its own
   * ({@link SessionSettings#isolated}).
   */
  public EncodeJob(SparkSession spark, JobSettings settings, LoadedModel model,
      Map<String, Object> reuseKey, long startNanos) {
    this.spark = SessionSettings.isolated(spark);
    this.settings = settings;
    this.model = model;
    this.reuseKey = reuseKey;
    this.startNanos = startNanos;
    this.phases = new JobPhases(startNanos);
  }

  public static void main(String[] args) {
    System.exit(new EncodeCommand(System.out, System.err).run(args));
  }

  /** Loads the model the settings name, on the driver; fails before any Spark work. */
  public static LoadedModel loadModel(JobSettings settings) {
    JobSettings.Weights w = settings.weights();
    return w.isFolder()
        ? LoadedModel.fromFolder(settings.modelFolder(), settings.model(),
            settings.output().choices().heads(), w.precision())
        : LoadedModel.fromFile(Path.of(w.path()), w.naming(), settings.model(), w.precision());
  }

  /** What {@code output.mode} lets the job replace. */
  static OutputFolder.Replace replaces(JobSettings.OutputMode mode) {
    return switch (mode) {
      case ERROR_IF_EXISTS -> OutputFolder.Replace.NOTHING;
      case OVERWRITE, UPDATE -> OutputFolder.Replace.EARLIER_OUTPUT;
      case REPLACE_ANY_FOLDER -> OutputFolder.Replace.ANY_FOLDER;
    };
  }

  /** Runs the whole job and returns its summary; the output is committed when this returns. */
  public RunSummary run(PrintStream console) {
    Configuration hadoop = spark.sparkContext().hadoopConfiguration();
    Preflight.checkPaths(settings);
    OutputFolder out = OutputFolder.open(settings.output().path(), hadoop,
        replaces(settings.output().mode()),
        settings.execution().resume() && Checkpoints.whyNone(settings) == null);
    try {
      RunSummary summary = write(out, console);
      if (!summary.balanced()) {
        throw new IllegalStateException("Rows do not add up: " + summary.rowsRead() + " read, "
            + summary.rowsWritten() + " written, " + summary.rowsRejected() + " rejected; "
            + "output not committed");
      }
      out.commit();
      LOG.info("committed in {} s; phases (s): {}; task seconds: {}",
          String.format("%.2f", phases.end("commit")), summary.phases(), summary.taskSeconds());
      return summary;
    } catch (Exception e) {   // SparkException included, which Spark throws unchecked
      out.abort();
      throw e;
    } finally {
      out.close();
      phases.stopListening(spark.sparkContext());   // a shared session outlives the job
    }
  }

  /** Encodes and writes every table; the settings it sets are on the job's own session. */
  private RunSummary write(OutputFolder out, PrintStream console) {
    phases.end("start");
    phases.listenTo(spark.sparkContext());
    LOG.info("Spark session up, {} s since start", elapsed());
    // Lists in Parquet's 2-level layout (repeated values, no group per element): the same
    // array<array<float>> to every reader, written a third faster (8.5 -> 5.8 task-seconds for
    // 256 x 128 x 768 floats here). Spark reads this from the session, not from writer options.
    spark.conf().set("spark.sql.parquet.writeLegacyFormat", "true");
    // Read splits of about a quarter of a task slot's share: Spark packs small files into splits
    // of up to 128 MB, which on a few large-row files made as few partitions as slots, unequal
    // ones, and left cores idle at the end. Splitting when reading costs no shuffle.
    spark.conf().set("spark.sql.files.minPartitionNum",
        String.valueOf(PARTITIONS_PER_SLOT * slots()));
    Dataset<Row> input = ParquetInput.read(spark, settings.input().path(),
        settings.input().kind() == InputKind.EMBEDDINGS);
    Preflight.checkColumns(settings, input.schema());
    Configuration hadoop = spark.sparkContext().hadoopConfiguration();
    // Rows of token vectors: their footers size the reader's batch, then plan the splits.
    Map<String, List<RowGroup>> footers = settings.input().kind() == InputKind.EMBEDDINGS
        ? ParquetFooters.rowGroups(Arrays.asList(input.inputFiles()), hadoop) : Map.of();
    // Before the scan is planned: Spark reads the batch's size when it builds the reader.
    spark.conf().set("spark.sql.parquet.columnarReaderBatchSize",
        String.valueOf(readerBatchRows(footers)));
    SplitPlan plan = ParquetInput.splitPlan(input, plannedSlots(), hadoop, footers);
    long rowsRead = plan.rows();
    LOG.info("{} rows in {}: {}; {} s since start", rowsRead, shown(settings.input().path()),
        plan.reason(), elapsed());
    LOG.info("model fingerprint {}, {} s since start", reuseKey.get("model_fingerprint"),
        elapsed());
    UpdatePlan update = settings.output().mode() == JobSettings.OutputMode.UPDATE
        ? UpdatePlan.open(spark, settings, out, reuseKey, plan.bytes(), input.schema()) : null;
    if (update != null) {
      LOG.info("update: the earlier output's run summary matches, {} s since start", elapsed());
    }
    // int8 and uint8 without ranges: an update takes the earlier output's, else the float
    // vectors go to a table of their own and the ranges are taken over all of them
    Quantization quantize = settings.output().quantize();
    boolean rangesUngiven = quantize.ranged() && settings.output().quantizeRanges().isEmpty();
    boolean calibrates = rangesUngiven && update == null;
    String table = calibrates ? QuantizeStep.FLOAT_TABLE : "embeddings";
    RowWeight weight = rowWeight();
    EncodeMetrics metrics = new EncodeMetrics(spark.sparkContext());
    EncoderTransformer transformer = Transformers.fromSettings(settings).setMetrics(metrics)
        .setLoadedModel(model);
    KeptPieces kept;
    try {
      kept = keptPieces(input, plan, out, console, table, weight, transformer);
    } catch (RuntimeException e) {
      transformer.release();   // the kept rows' check may have handed the weights out
      throw e;
    }
    Dataset<Row> spread = kept == null ? ParquetInput.spread(input, plan, plannedSlots(), weight)
        : ParquetInput.inPieces(input, plan, kept.pieces(), kept.done(), weight);
    Dataset<Row> hashed = spread
        .withColumn(UpdatePlan.HASH_COLUMN, UpdatePlan.inputHash(settings.input()));
    Dataset<Row> toEncode = update == null ? hashed : update.toEncode(hashed);
    if (calibrates) {
      transformer.setFloatPooled();
    } else if (rangesUngiven) {   // an update: the earlier output's
      transformer.setQuantizeRanges(out.target().suffix("/run-summary.json").toString());
    }
    boolean chunked = settings.input().chunkRows();
    long rowsLeft = rowsRead - (kept == null || chunked ? 0 : kept.rows());
    InputIdCheck ids = null;
    try (ProgressListener progress = startProgress(metrics, rowsLeft, console)) {
      Consumer<String> phase = progress == null ? name -> { } : progress::phase;
      try {
        EncodedTables tables = new EncodedTables(spark, settings, table,
            model.weights().encoder().layerCount());
        Dataset<Row> encoded = transformer.transform(toEncode);
        if (update != null) {
          encoded = update.withReused(encoded, hashed);
        }
        encoded = UpdatePlan.hashLast(encoded);
        phases.end("plan");
        LOG.info("planned, {} s since start", elapsed());
        ids = InputIdCheck.start(spark.sparkContext(), input, settings.input().idColumn());
        tables.write(encoded, out, phase);
        if (progress != null) {
          progress.print();
        }
        phases.end("encode");
        LOG.info("encoded and written, {} s since start", elapsed());
        long alreadyPrompted = metrics.rowsAlreadyPrompted().value();
        transformer.heldPrompts().filter(held -> alreadyPrompted > 0)
            .ifPresent(held -> LOG.warn(settings.environment().redact(
                held.warning(alreadyPrompted))));
        phase.accept("writing the rejected rows");
        // Rows the reused pieces set aside were counted by the run that made them: looked for
        // again unless every input row is written.
        writeRejects(input, transformer, metrics.rowsSkipped().value() > 0
            || (kept != null && !kept.done().isEmpty() && (chunked || rowsRead
                != ParquetFooters.rowCountOfFolder(out.staged(table), hadoop))), out);
        phases.end("rejects");
        LOG.info("rejects written, {} s since start", elapsed());
        if (calibrates) {
          phase.accept("quantizing the vectors");
          quantizeRanges = QuantizeStep.run(spark, out, "embeddings", "pooled", quantize);
          phases.end("quantize");
          LOG.info("quantized to {} with ranges over every row, {} s since start",
              quantize.configName(), elapsed());
        } else if (quantize.ranged()) {
          quantizeRanges = transformer.quantizeRanges(hadoop, transformer.pooledWidth());
        }
      } finally {
        transformer.release();   // the broadcast weights, on every executor
      }
      if (settings.output().report().enabled()) {
        phase.accept("writing the report");
        EncoderWeights w = model.weights().encoder();
        AttentionReport.write(spark, out.staging(), settings, String.format(
            "Encoder %s: %d layers, E = %d, %d heads, F = %d. Input %s, %,d rows.",
            shown(settings.weights().location()), w.layerCount(), w.width(),
            settings.model().heads(), w.ffnWidth(), shown(settings.input().path()), rowsRead));
        phases.end("report");
        LOG.info("report written, {} s since start", elapsed());
      }
      phase.accept("counting the written rows");
      Map<String, Long> updated = null;
      if (update != null) {
        // the rows the encoder took (each task's count applied once: the write is an action)
        long encodedRows = metrics.rowsDone().value() + metrics.rowsSkipped().value();
        updated = new LinkedHashMap<>();
        updated.put("rows_encoded", encodedRows);
        updated.put("rows_reused", rowsRead - encodedRows);
        updated.put("rows_dropped", update.droppedIds(hashed));
        LOG.info("update: {}", updated);
      }
      RunSummary summary = summarize(out, plan, metrics, transformer, updated,
          Checkpoints.summary(settings, kept, out.resumedFrom(), this::shown), ids.unique());
      summary.write(out.staged("run-summary.json"), hadoop);
      return summary;
    } finally {
      if (ids != null) {
        ids.close();
      }
    }
  }

  /**
   * The pieces this job cuts its input into and keeps as it writes them, with those a killed run
   * kept and this one reuses; null when it keeps none (the log says why).
   */
  private KeptPieces keptPieces(Dataset<Row> input, SplitPlan plan, OutputFolder out,
      PrintStream console, String table, RowWeight weight, EncoderTransformer transformer) {
    String none = Checkpoints.whyNone(settings);
    if (none != null) {
      LOG.info("no pieces kept for a resumed run: {}", none);
      return null;
    }
    double rate = PrecisionCalibration.productRate(model.weights().precision());
    int wanted = Checkpoints.wanted(settings, model, plan, rate);
    int pieces = ParquetInput.pieceCount(plan, plannedSlots(), wanted);
    Configuration hadoop = spark.sparkContext().hadoopConfiguration();
    KeptPieces kept = KeptPieces.open(out, table, Checkpoints.identity(input, plan,
        plannedSlots(), weight, reuseKey, settings.environment(), hadoop), pieces, hadoop);
    // the files may have been rewritten keeping their size, time and footer: the rows decide
    long checking = System.nanoTime();
    kept = kept.without(KeptRowsCheck.stale(input, plan, kept, weight, settings.input(),
        transformer), hadoop);
    if (!kept.done().isEmpty()) {
      LOG.info("the kept pieces' rows checked against the input's in {} s",
          String.format("%.2f", (System.nanoTime() - checking) / 1e9));
    }
    LOG.info("{}; {} s since start", Checkpoints.described(settings, kept, wanted, rate),
        elapsed());
    if (kept.note() != null) {
      console.println(shown(kept.note()));
    }
    return kept;
  }

  /**
   * How the tasks that read one split share out its rows: by each row's estimated work. A
   * token's attention costs {@link Shapes#multiplyAddsPerToken} per key it attends to, as much
   * as its dense products at some length; attention's many small products and its softmax run
   * at about a tenth of the dense products' rate per multiply-add (the real-text int8 job's
   * profile: 28 % of the task time for 4 % of the work), so it weighs as much at a tenth of it.
   */
  private RowWeight rowWeight() {
    JobSettings.Input in = settings.input();
    Shapes shapes = Shapes.of(model.settings(), model.weights().encoder());
    double dense = shapes.multiplyAddsPerToken(0);
    double perKey = shapes.multiplyAddsPerToken(1) - dense;
    int window = in.kind() == InputKind.EMBEDDINGS ? in.maxLength() : in.maxTokens();
    // static embeddings attend to nothing: a row weighs its tokens (their lookups)
    return new RowWeight(in.sequenceColumn(), window,
        in.chunkRows(),
        perKey > 0 ? dense / perKey / ATTENTION_SLOWDOWN : Double.MAX_VALUE);
  }

  /**
   * {@code execution.reader-batch-rows}, or fewer for rows of token vectors, whose size their
   * {@code footers} give ({@link ReaderBatch}); rows of text or ids are small (no footers).
   */
  private int readerBatchRows(Map<String, List<RowGroup>> footers) {
    int configured = settings.execution().readerBatchRows();
    int rows = ReaderBatch.rows(configured, footers.values());
    if (rows < configured) {
      LOG.info("Parquet reader batches of {} rows (execution.reader-batch-rows {}): rows of "
          + "token vectors are wide", rows, configured);
    }
    return rows;
  }

  /** A setting's value for the log and the outputs: redacted if it came from the environment. */
  private String shown(String value) {
    return settings.environment().redact(value);
  }

  private String elapsed() {
    return String.format("%.2f", (System.nanoTime() - startNanos) / 1e9);
  }

  /**
   * Rejected rows, found by a validation pass that runs no model; when the encoding set none
   * aside, an empty table of the same columns, made without planning that pass over the input.
   */
  private void writeRejects(Dataset<Row> input, EncoderTransformer transformer, boolean any,
      OutputFolder out) {
    Dataset<Row> rejects = any ? transformer.rejectedRows(input)
        : spark.createDataFrame(List.of(), RejectedRows.schema(input.schema()));
    rejects.coalesce(1).write().parquet(out.staged("rejects"));
  }

  /** The task slots the input is planned for: execution.min-partitions, else every slot. */
  private int plannedSlots() {
    return settings.execution().minPartitions() > 0 ? settings.execution().minPartitions()
        : slots();
  }

  private int slots() {
    return spark.sparkContext().defaultParallelism();
  }

  private ProgressListener startProgress(EncodeMetrics metrics, long total, PrintStream console) {
    if (!settings.execution().progress()) {
      return null;
    }
    return ProgressListener.start(spark.sparkContext(), metrics.rowsDone().id(),
        metrics.tokensEncoded().id(), total, console, 5);
  }

  /** The run summary; {@code uniqueInputIds}: no id repeats in the input ({@link InputIdCheck}). */
  private RunSummary summarize(OutputFolder out, SplitPlan plan, EncodeMetrics metrics,
      EncoderTransformer transformer, Map<String, Long> update, Map<String, Object> resume,
      boolean uniqueInputIds) {
    Configuration hadoop = spark.sparkContext().hadoopConfiguration();
    long chunks = ParquetFooters.rowCountOfFolder(out.staged("embeddings"), hadoop);
    // Texts cut into windows, a row each: every text written has exactly one window 0.
    boolean mayChunk = settings.input().chunkRows();
    boolean chunked = false;
    DuplicateIds duplicates;
    if (uniqueInputIds && !mayChunk) {
      duplicates = DuplicateIds.none(chunks);
    } else {
      Dataset<Row> rows = spark.read().parquet(out.staged("embeddings"));
      chunked = mayChunk && Arrays.asList(rows.columns()).contains(InputKind.CHUNK_COLUMN);
      duplicates = DuplicateIds.of(chunked
          ? rows.where(col(InputKind.CHUNK_COLUMN).equalTo(0)) : rows,
          settings.input().idColumn());
    }
    long written = chunked ? duplicates.rows() : chunks;
    long rejected = ParquetFooters.rowCountOfFolder(out.staged("rejects"), hadoop);
    Map<String, Long> byRule = new TreeMap<>();
    if (rejected > 0) {
      Dataset<Row> rejects = spark.read().parquet(out.staged("rejects"));
      for (Row r : rejects.groupBy(RejectedRows.RULE_COLUMN).count().collectAsList()) {
        byRule.put(r.getString(0), r.getLong(1));
      }
    }
    Map<String, Object> outputs = new LinkedHashMap<>();
    outputs.put("path", shown(settings.output().path()));
    outputs.put("pooled_width", transformer.pooledWidth());
    outputs.put("quantize", settings.output().quantize().configName());
    if (quantizeRanges != null) {
      outputs.put("quantize_ranges", QuantizeRanges.described(quantizeRanges));
    }
    outputs.put("attention", settings.output().attention());
    phases.end("count");
    double forward = metrics.forwardNanos().value() / 1e9;
    double read = metrics.readNanos().value() / 1e9;
    double build = metrics.outputNanos().value() / 1e9;
    Map<String, Double> taskSeconds = new LinkedHashMap<>();
    taskSeconds.put("all", JobPhases.round(phases.taskSeconds()));
    taskSeconds.put("read", JobPhases.round(read));
    taskSeconds.put("forward", JobPhases.round(forward));
    taskSeconds.put("output_rows", JobPhases.round(build));
    taskSeconds.put("write_and_other",
        JobPhases.round(phases.taskSeconds() - read - forward - build));
    return new RunSummary(plan.rows(), written, chunks, rejected, duplicates.ids(),
        duplicates.extraRows(), byRule,
        metrics.rowsTruncated().value(), transformer.heldPrompts().isPresent()
            ? metrics.rowsAlreadyPrompted().value() : null,
        metrics.tokensEncoded().value(), metrics.largestBatch().value(),
        (System.nanoTime() - startNanos) / 1e9, forward,
        phases.seconds(), taskSeconds, plan, RowMajorBlas.implementation()
            + (model.weights().precision() == Precision.FLOAT32
                ? "; " + Float32Products.describe() : ""),
        metrics.executors(), Transformers.describe(settings, model), settings.rowShaping(),
        outputs, reuseKey, update, resume);
  }
}
