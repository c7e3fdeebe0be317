package io.corpus.encoder.config;

import io.corpus.encoder.common.ConfigName;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.Quantization;
import io.corpus.encoder.text.LateChunking;
import io.corpus.encoder.weights.ModelFolder;
import io.corpus.encoder.weights.TensorNaming;
import java.io.Serializable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Everything one encode job needs, as parsed from its configuration by {@link SettingsParser};
 * {@code environment} holds the values that came from environment variables, never to be shown;
 * {@code given} the settings the configuration sets, by key, as read and checked (what the
 * Transformer's params are copied from, so a setting that mirrors a param is wired once);
 * {@code used} every setting's value as the job uses it, by key: as read, with the auto choices
 * resolved and, for a model folder, the architecture its config.json gives (what
 * {@link #rowShaping} reports).
 */
public record JobSettings(
    Input input,
    Weights weights,
    ModelSettings model,
    Output output,
    Execution execution,
    EnvironmentValues environment,
    Map<String, Object> given,
    Map<String, Object> used) implements SettingValues, Serializable {

  public JobSettings {
    given = Collections.unmodifiableMap(new LinkedHashMap<>(given));
    used = Collections.unmodifiableMap(new LinkedHashMap<>(used));
  }

  /**
   * Every setting that shapes the rows the job writes, by key, as the job uses it: the run
   * summary's {@code settings}, and part of the reuse key an update and a resumed run compare;
   * a value from the environment as its digest ({@link EnvironmentValues#hidden}).
   */
  public Map<String, Object> rowShaping() {
    return Settings.rowShaping(Settings.ALL, key -> environment.hidden(key, used.get(key)));
  }

  /** The model folder ({@code model.path}) as the job reads it: {@link #readFolder}. */
  public ModelFolder modelFolder() {
    return readFolder(weights.folder(), this);
  }

  /**
   * The folder at {@code path} as {@code v} reads it: its pairs in the reranker's template
   * ({@link SettingRules#reranker}), with the adapter of {@code model.task}.
   */
  public static ModelFolder readFolder(String path, SettingValues v) {
    return ModelFolder.read(java.nio.file.Path.of(path)).withReranker(SettingRules.reranker(v))
        .withTask(v.value(Settings.TASK));
  }

  /** What {@link #readFolder} reads the folder as: equal for equal folders. */
  public static String folderKey(String path, SettingValues v) {
    return path + "|" + SettingRules.reranker(v).configName() + "|" + v.value(Settings.TASK);
  }

  @Override
  public SettingRules.Naming naming() {
    return SettingRules.Naming.KEYS;
  }

  /** A setting's value as the job uses it: what {@code used} holds for its key. */
  @Override
  @SuppressWarnings("unchecked")
  public <T> T value(Setting<T> setting) {
    if (!used.containsKey(setting.key())) {
      throw new IllegalArgumentException("no value for " + setting.key());
    }
    return (T) used.get(setting.key());
  }

  @Override
  public boolean given(Setting<?> setting) {
    return given.containsKey(setting.key());
  }

  /**
   * Where the sequences come from: exactly one of {@code embeddingsColumn}, {@code idsColumn} and
   * {@code textColumn} is set, the others are empty, as are {@code typeIdsColumn},
   * {@code pairColumn} (the second text of a pair, with {@code textColumn} the first),
   * {@code maskColumn} and {@code tokensColumn} when there is none. {@code maxLength} (embeddings;
   * 0 = no limit) rejects longer rows; {@code maxTokens} (ids and text, resolved from the model
   * folder when not given) cuts or rejects them, as {@code onTooLong} says. {@code prompt} is
   * the prompt put before every text, as given ({@code input.prompt} only when the file sets it,
   * "" included); the folder's default applies when neither is given.
   */
  public record Input(String path, String idColumn, String embeddingsColumn, String idsColumn,
      String textColumn, String pairColumn, String typeIdsColumn, String maskColumn,
      String tokensColumn,
      int maxLength, int maxTokens, OnTooLong onTooLong, int chunkOverlap,
      LateChunking.SpanRule lateChunking, int chunkTokens, OnInvalid onInvalid)
      implements Serializable {
    /** Whether a text may become several rows, each with {@code chunk} (windows or late chunks). */
    public boolean chunkRows() {
      return onTooLong == OnTooLong.CHUNK || lateChunking != LateChunking.SpanRule.NONE;
    }

    public boolean hasMask() {
      return !maskColumn.isEmpty();
    }

    public InputKind kind() {
      return !textColumn.isEmpty() ? InputKind.TEXT
          : !idsColumn.isEmpty() ? InputKind.IDS : InputKind.EMBEDDINGS;
    }

    /** The column a row's sequence comes from: its text, its token ids or its vectors. */
    public String sequenceColumn() {
      return switch (kind()) {
        case TEXT -> textColumn;
        case IDS -> idsColumn;
        case EMBEDDINGS -> embeddingsColumn;
      };
    }

    /** The column of token texts the report labels its axes with ("" = none). */
    public String labelsColumn() {
      return kind() == InputKind.TEXT ? InputKind.TOKENS_COLUMN : tokensColumn;
    }
  }

  /** What happens to token ids or text longer than {@code input.max-tokens}. */
  public enum OnTooLong implements ConfigName {
    TRUNCATE("truncate"), REJECT("reject"), CHUNK("chunk");

    private final String configName;

    OnTooLong(String configName) {
      this.configName = configName;
    }

    @Override
    public String configName() {
      return configName;
    }
  }

  /**
   * What happens to a text that already begins with the prompt the job is about to put before
   * it, or with another prompt of the folder: counted and prompted anyway, encoded as given, or
   * the job refused.
   */
  public enum OnAlreadyPrompted implements ConfigName {
    WARN("warn"), SKIP_PROMPT("skip-prompt"), FAIL("fail");

    private final String configName;

    OnAlreadyPrompted(String configName) {
      this.configName = configName;
    }

    @Override
    public String configName() {
      return configName;
    }
  }

  /** What happens to a row that cannot be encoded. */
  public enum OnInvalid implements ConfigName {
    QUARANTINE("quarantine"), FAIL("fail");

    private final String configName;

    OnInvalid(String configName) {
      this.configName = configName;
    }

    @Override
    public String configName() {
      return configName;
    }
  }

  /**
   * The model: a safetensors file of encoder layers and how its tensors are named, or a Hugging
   * Face model folder ({@code folder}); exactly one of {@code path} and {@code folder} is set.
   * {@code precision} is what the weight products compute in.
   */
  public record Weights(String path, TensorNaming naming, String folder, Precision precision)
      implements Serializable {
    public boolean isFolder() {
      return !folder.isEmpty();
    }

    /** The file or folder, for messages and the summary. */
    public String location() {
      return isFolder() ? folder : path;
    }
  }

  /**
   * What happens to an existing output folder: refused; replaced when it is empty or an earlier
   * output of this job; replaced whatever folder it is; or updated: an earlier output of this
   * job lends its rows to the unchanged rows of the input, and is replaced.
   */
  public enum OutputMode implements ConfigName {
    ERROR_IF_EXISTS("error-if-exists"), OVERWRITE("overwrite"),
    REPLACE_ANY_FOLDER("replace-any-folder"), UPDATE("update");

    private final String configName;

    OutputMode(String configName) {
      this.configName = configName;
    }

    @Override
    public String configName() {
      return configName;
    }
  }

  /**
   * Where and what to write: {@code choices} are the output settings resolved
   * ({@link OutputChoices}: a model folder's sentence-transformers modules and files, unless
   * the config overrides them); {@code tokenEmbeddings} false writes the pooled vector without
   * the (T, E) token vectors; {@code entities} is how a token classifier's entities are grouped
   * (as configured: auto, none, simple, first, average, max). Settings the job only hands to the
   * transformer are read with {@link JobSettings#value}.
   */
  public record Output(String path, OutputMode mode, OutputChoices choices,
      boolean tokenEmbeddings, String entities, AttentionOutputs attention, Report report,
      String quantizeRanges) implements Serializable {

    public Pooling pooling() {
      return choices.pooling();
    }

    public boolean normalize() {
      return choices.normalize();
    }

    public boolean lexical() {
      return choices.lexical();
    }

    public boolean multiVector() {
      return choices.multiVector();
    }

    public Quantization quantize() {
      return choices.quantization();
    }
  }

  /**
   * The HTML report: whether to write it; the head view's sequences and their tokens shown; the
   * corpus map's column for colours ("" = none), its most points (0 = no map), neighbours per
   * point and the cosine from which pairs are listed as near duplicates.
   */
  public record Report(boolean enabled, int sequences, int maxTokens, String colorColumn,
      int mapPoints, int neighbours, double duplicatesAbove) implements Serializable {}

  /**
   * How the work is cut up. {@code minPartitions} 0 means the number of task slots;
   * {@code readerBatchRows} is the Parquet reader's batch, in rows; {@code resume} whether a run
   * reuses the pieces a killed run kept.
   */
  public record Execution(int batchTokens, int readerBatchRows, int minPartitions,
      boolean progress, boolean resume) implements Serializable {}
}
