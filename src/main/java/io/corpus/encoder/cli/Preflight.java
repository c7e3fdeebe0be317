package io.corpus.encoder.cli;

import io.corpus.encoder.config.InputKind;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.config.JobSettings.OnAlreadyPrompted;
import io.corpus.encoder.config.Settings;
import io.corpus.encoder.config.SettingsException;
import io.corpus.encoder.io.LocalPaths;
import io.corpus.encoder.io.OutputFolder;
import io.corpus.encoder.io.OutputPaths;
import io.corpus.encoder.io.ParquetFooters;
import io.corpus.encoder.io.ParquetInput;
import io.corpus.encoder.pipeline.EncoderTransformer;
import io.corpus.encoder.pipeline.HeldPrompts;
import io.corpus.encoder.pipeline.InputColumns;
import io.corpus.encoder.pipeline.LoadedModel;
import io.corpus.encoder.text.TextTokenizer;
import io.corpus.encoder.weights.ModelFolder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.types.StructType;

/**
 * Every check a job makes before its first task, made before Spark starts: by the job, and by
 * {@code jobs/encode --check}, which so refuses what the job would refuse, in the same line.
 * {@link #beforeModel} needs no weights: the paths, what is at the output path (its lock, whether
 * it may be replaced), the input's columns read from one footer against the params, and the
 * attention layers and heads against the model folder's config.json. {@link #withModel}, made
 * while Spark starts, checks a weights file's indices against its layers (it has no config) and a
 * folder's tokenizer against the embedding table and max-tokens. What only Spark
 * can see (a remote file system, a partitioned input) is checked when Spark has started, by the
 * same code. Driver only.
 */
final class Preflight {
  /**
   * What the checks read, for {@code --check}'s summary: the input's rows and columns, and where
   * a prompt goes before the texts, how many of the first ones hold one already (else null).
   */
  record Found(String input, PromptedSample prompted) {
    Found(String input) {
      this(input, null);
    }
  }

  private Preflight() {}

  /**
   * The checks that need no weights. With {@code everyFooter} ({@code --check}) a local input's
   * every footer is read, as the job reads them when it plans its splits, so a damaged file
   * other than the first is refused here too, and where a prompt goes before the texts the
   * first ones are sampled for one they hold already; so they are under
   * {@code input.on-already-prompted = fail}, which refuses the job when one does.
   */
  static Found beforeModel(JobSettings settings, boolean everyFooter) {
    checkPaths(settings);
    settings.weights().precision().refusal().ifPresent(why -> {
      throw new SettingsException(why);
    });
    checkUpdate(settings.output());
    OutputFolder.checkBeforeStart(settings.output().path(),
        EncodeJob.replaces(settings.output().mode()));
    if (settings.weights().isFolder()) {
      ModelFolder folder = settings.modelFolder();
      settings.output().attention().checkIndices(folder.shape().layers(), folder.shape().heads());
      Transformers.fromSettings(settings).checkOutputs(folder.pooledWidth());
      checkQuantizeRanges(settings, folder.pooledWidth());
    }
    Optional<ParquetInput.LocalTable> table = ParquetInput.schemaBeforeSpark(
        settings.input().path());
    if (table.isEmpty()) {
      return new Found("columns checked when Spark reads the input (a partitioned folder or a "
          + "file system other than the local disk)");
    }
    StructType schema = table.get().schema();
    checkColumns(settings, schema);
    String columns = "columns " + String.join(", ", schema.fieldNames());
    PromptedSample prompted = promptedSample(settings, table.get().files(), everyFooter);
    if (!everyFooter) {
      return new Found(columns, prompted);
    }
    long rows = ParquetFooters.rowCount(ParquetFooters.rowGroups(table.get().files(),
        new Configuration()).values());
    int files = table.get().files().size();
    return new Found(String.format("%,d rows in %,d file%s; %s", rows, files,
        files == 1 ? "" : "s", columns), prompted);
  }

  /**
   * The first texts of {@code files} looked at for a prompt they already hold, where the job
   * puts one before them and either {@code --check} asks or the job fails on such texts; null
   * otherwise. Refuses the job when the sample holds one under fail.
   */
  private static PromptedSample promptedSample(JobSettings settings, List<String> files,
      boolean check) {
    if (!settings.weights().isFolder() || settings.input().kind() != InputKind.TEXT) {
      return null;
    }
    Optional<HeldPrompts> held = Transformers.fromSettings(settings).heldPrompts();
    if (held.isEmpty() || (!check && held.get().onHeld() != OnAlreadyPrompted.FAIL)) {
      return null;
    }
    PromptedSample sample = PromptedSample.of(held.get(), settings.input(), files);
    if (held.get().onHeld() == OnAlreadyPrompted.FAIL && sample.held() > 0) {
      throw new IllegalArgumentException(sample.refusal());
    }
    return sample;
  }

  /**
   * Refuses an update with outputs it would not keep whole: attention maps, statistics and the
   * rollout come from a forward pass the reused rows do not make, and the report reads them.
   */
  static void checkUpdate(JobSettings.Output output) {
    if (output.mode() == JobSettings.OutputMode.UPDATE
        && (output.attention().any() || output.report().enabled())) {
      throw new IllegalArgumentException("output.mode = update reuses the vectors of unchanged "
          + "rows, not their attention maps, statistics, importances or report: set "
          + "output.attention.enabled, output.attention.stats, output.attention.rollout, "
          + "output.attention.importance and output.report.enabled to false, or use "
          + "output.mode = overwrite");
    }
  }

  /** The folder's tokenizer as checked: its ids, and the longest sequence it makes. */
  record Tokenizer(TextTokenizer.Vocabulary vocabulary, int maxTokens) {}

  /**
   * The checks that need the weights, made while Spark starts: for a weights file (which has no
   * config.json) the attention indices and outputs against its layers and width, and for a
   * folder its tokenizer against the embedding table and max-tokens (room for text beside the
   * special tokens, a chunk overlap a window can hold). Returns the tokenizer checked, or null
   * without one.
   */
  static Tokenizer withModel(JobSettings settings, LoadedModel model) {
    if (!model.isFolder()) {
      settings.output().attention().checkIndices(model.weights().encoder().layerCount(),
          model.settings().heads());
      Transformers.fromSettings(settings).checkOutputs(model.weights().pooledWidth());
      checkQuantizeRanges(settings, model.weights().pooledWidth());
      return null;
    }
    if (model.tokenizerJson() == null) {
      return null;
    }
    JobSettings.Input in = settings.input();
    int chunkOverlap = in.onTooLong() == JobSettings.OnTooLong.CHUNK ? in.chunkOverlap() : -1;
    int maxTokens = checkedMaxTokens(settings, model.folder());
    return new Tokenizer(TextTokenizer.check(model.tokenizerJson(),
        String.valueOf(model.folder().tokenizer().orElseThrow()), maxTokens, chunkOverlap,
        model.weights().embeddings().vocabularySize()), maxTokens);
  }

  /** The max-tokens {@link #withModel} checks the folder's tokenizer for. */
  private static int checkedMaxTokens(JobSettings settings, ModelFolder folder) {
    JobSettings.Input in = settings.input();
    return in.kind() == InputKind.EMBEDDINGS ? folder.tokenLimit(0, "") : in.maxTokens();
  }

  /**
   * Reads the folder's tokenizer ahead for {@link #withModel} ({@link TextTokenizer#readAhead})
   * on a thread of its own while the model loads: Qwen3's 11 MB took 1.3 s on the start's path,
   * after the load. Reports nothing: what fails is the check's to name.
   */
  static void readTokenizerAhead(JobSettings settings) {
    if (!settings.weights().isFolder()) {
      return;
    }
    // nobody takes its result: a folder that fails is the load's or the check's to report
    new BackgroundTask<Void>("tokenizer-read-ahead", "the tokenizer was read ahead", () -> {
      ModelFolder folder = settings.modelFolder();
      byte[] json = LoadedModel.tokenizerOf(folder);
      if (json != null) {
        TextTokenizer.readAhead(json, checkedMaxTokens(settings, folder));
      }
      return null;
    });
  }

  /**
   * The ranges file of int8 or uint8 read and held to the pooled vector's width (its Matryoshka
   * cut), as the job reads it: a local file here, another file system's when Spark reads it.
   */
  private static void checkQuantizeRanges(JobSettings settings, int pooledWidth) {
    String ranges = settings.output().quantizeRanges();
    Configuration conf = LocalPaths.beforeSpark();
    if (!settings.output().quantize().ranged() || ranges.isEmpty()
        || LocalPaths.isRemote(new org.apache.hadoop.fs.Path(ranges), conf)) {
      return;
    }
    int cut = settings.value(Settings.DIMENSIONS);
    Transformers.fromSettings(settings).quantizeRanges(conf, cut > 0 ? cut : pooledWidth);
  }

  /**
   * Refuses, in one line naming both paths, an output path whose replacing could destroy what the
   * job reads or what is not its own ({@link OutputPaths}), and a path this JVM cannot name.
   */
  static void checkPaths(JobSettings settings) {
    Map<String, String> reads = new LinkedHashMap<>();
    reads.put("input.path", settings.input().path());
    reads.put(settings.weights().isFolder() ? "model.path" : "model.weights",
        settings.weights().location());
    Map<String, String> paths = new LinkedHashMap<>(reads);
    paths.put("output.path", settings.output().path());
    Charset names = Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
    if (!names.equals(StandardCharsets.UTF_8)) {
      for (Map.Entry<String, String> path : paths.entrySet()) {
        if (!names.newEncoder().canEncode(path.getValue())) {
          throw new IllegalArgumentException(path.getKey() + " " + path.getValue() + " has "
              + "characters that file names cannot hold in this locale (" + names + "); run "
              + "with a UTF-8 locale, for example LANG=C.UTF-8");
        }
      }
    }
    OutputPaths.check(settings.output().path(), reads);
  }

  /** The input's columns against the params and the report's, as the job checks them. */
  static void checkColumns(JobSettings settings, StructType schema) {
    if (List.of(schema.fieldNames()).contains(UpdatePlan.HASH_COLUMN)) {
      throw new IllegalArgumentException("The input has a column " + UpdatePlan.HASH_COLUMN
          + ", which the job writes (each row's hash of what it encodes); rename or drop it");
    }
    Transformers.fromSettings(settings).transformSchema(schema);
    if (!settings.input().tokensColumn().isEmpty()) {
      InputColumns.requireTokens(schema, settings.input().tokensColumn());
    }
    JobSettings.Report report = settings.output().report();
    if (report.enabled() && !report.colorColumn().isEmpty()) {
      InputColumns.requireInputColumn(schema, "output.report.color-column", report.colorColumn());
    }
    for (String column : settings.output().attention().statsBy()) {
      InputColumns.requireInputColumn(schema, "output.attention.stats-by", column);
    }
  }
}
