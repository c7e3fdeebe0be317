package io.corpus.encoder.cli;

import io.corpus.encoder.config.EnvironmentValues;
import io.corpus.encoder.config.InputKind;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.config.Settings;
import io.corpus.encoder.io.KeptPieces;
import io.corpus.encoder.io.ParquetInput;
import io.corpus.encoder.io.RowWeight;
import io.corpus.encoder.io.SplitPlan;
import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.Shapes;
import io.corpus.encoder.model.SpladeHead;
import io.corpus.encoder.pipeline.LoadedModel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * How a job cuts its input into pieces that a killed run, started again, need not compute twice
 * ({@code execution.checkpoint-seconds}, {@code execution.resume}; see
 * {@link io.corpus.encoder.io.KeptPieces}). A piece is aimed at that many seconds of one task
 * slot's work, estimated before any task runs from the input's uncompressed size, the model's
 * shapes and its precision's measured product rate.
 */
final class Checkpoints {
  /**
   * The share of the products' measured rate the estimate grants a whole forward pass (norms,
   * softmax, tokenizing, writing included; for int8 quantizing and rescaling too); set low, so
   * that pieces come out shorter than asked rather than longer.
   */
  static final double SHARE_OF_BLAS = 0.5;
  /** Bytes of a row's Parquet data per token it is estimated to make, for text. */
  private static final int TEXT_BYTES_PER_TOKEN = 4;

  private Checkpoints() {}

  /** The work, in seconds of a task slot, each piece is aimed at; 0 for none. */
  private static int seconds(JobSettings settings) {
    return settings.value(Settings.CHECKPOINT_SECONDS);
  }

  /**
   * The log's line on the pieces: how many, of how much work, against how many wanted at the
   * products' {@code rate}.
   */
  static String described(JobSettings settings, KeptPieces kept, int wanted, double rate) {
    return String.format("input cut into %d pieces of about %d s of a slot's work (%d estimated "
        + "at %.0f G/s a slot's products)", kept.pieces(), seconds(settings), wanted, rate);
  }

  /**
   * What the run summary says of the pieces kept and reused ({@code kept} null: none, and
   * why); {@code shown} redacts what came from the environment.
   */
  static Map<String, Object> summary(JobSettings settings, KeptPieces kept, String resumedFrom,
      UnaryOperator<String> shown) {
    Map<String, Object> resume = new LinkedHashMap<>();
    resume.put("checkpoint_seconds", kept == null ? 0 : seconds(settings));
    if (kept == null) {
      resume.put("no_pieces", whyNone(settings));
      return resume;
    }
    resume.put("pieces", kept.pieces());
    resume.put("pieces_reused", kept.done().size());
    resume.put("rows_reused", kept.rows());
    resume.put("resumed_from", resumedFrom);
    resume.put("note", shown.apply(kept.note()));
    return resume;
  }

  /** Why this job keeps no pieces, or null when it keeps them. */
  static String whyNone(JobSettings settings) {
    if (seconds(settings) == 0) {
      return "execution.checkpoint-seconds = 0";
    }
    if (settings.output().mode() == JobSettings.OutputMode.UPDATE) {
      return "output.mode = update";
    }
    if (settings.output().attention().enabled() || settings.output().attention().rollout()) {
      return "attention maps are written from rows held while each table is written";
    }
    return null;
  }

  /**
   * The pieces to cut the input into so that each is about {@code execution.checkpoint-seconds}
   * of one slot's work: estimated tokens times the model's multiply-adds per token (SPLADE's
   * head included), over the share {@link #SHARE_OF_BLAS} of the {@code gflops} the model's
   * precision multiplies at ({@link io.corpus.encoder.kernel.PrecisionCalibration#productRate}).
   */
  static int wanted(JobSettings settings, LoadedModel loaded, SplitPlan plan, double gflops) {
    EncoderModel model = loaded.weights();
    EncoderWeights w = model.encoder();
    int positions = loaded.maxPositions();
    if (plan.rows() == 0) {
      return 1;
    }
    double bytesPerRow = (double) plan.bytes() / plan.rows();
    InputKind kind = settings.input().kind();
    double tokens = switch (kind) {
      case TEXT -> bytesPerRow / TEXT_BYTES_PER_TOKEN + 2;
      case IDS -> bytesPerRow / Integer.BYTES;
      case EMBEDDINGS -> bytesPerRow / Float.BYTES / w.width();
    };
    int limit = settings.input().maxTokens() > 0 ? settings.input().maxTokens()
        : positions > 0 ? positions : 512;
    double window = Math.max(1, Math.min(tokens, limit));
    if (!settings.input().chunkRows()) {
      tokens = window;
    }
    double perToken = 2.0 * Shapes.of(loaded.settings(), w).multiplyAddsPerToken(window)
        + model.head(SpladeHead.class).map(s -> 2.0 * w.width() * s.vocabularySize()).orElse(0.0);
    double seconds = plan.rows() * Math.max(1, tokens) * perToken
        / (Math.max(0.1, gflops) * 1e9 * SHARE_OF_BLAS);
    return (int) Math.min(Integer.MAX_VALUE,
        Math.ceil(seconds / seconds(settings)));
  }

  /**
   * What the rows of a piece depend on: the input files (path, with what came from the
   * environment redacted, size, modification time, footer digest), how
   * they were split and spread for how many slots and by what weight, and the {@code reuseKey} (the model's
   * fingerprint, the settings that shape a row).
   */
  static Map<String, Object> identity(Dataset<Row> input, SplitPlan plan, int slots,
      RowWeight weight, Map<String, Object> reuseKey, EnvironmentValues environment,
      Configuration conf) {
    Map<String, Object> identity = new LinkedHashMap<>();
    List<Map<String, Object>> files = new ArrayList<>();
    for (Map<String, Object> file : ParquetInput.files(input, conf)) {
      Map<String, Object> shown = new LinkedHashMap<>(file);   // the plan is a file the job writes
      shown.put("path", environment.redact((String) file.get("path")));
      files.add(shown);
    }
    identity.put("input_files", files);
    identity.put("splits", plan.splits());
    identity.put("spread", plan.spread().name());
    identity.put("row_weight", weight.described());
    identity.put("slots", slots);
    identity.put("reuse_key", reuseKey);
    return identity;
  }
}
