package io.corpus.encoder.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import io.corpus.encoder.common.ConfigName;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.model.HeadStatistics;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.Quantization;
import io.corpus.encoder.text.LateChunking;
import io.corpus.encoder.weights.ModelFolder;
import io.corpus.encoder.weights.TensorNaming;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Parses a job's HOCON file, over the defaults of {@link Settings} (which reference.conf
 * documents), into {@link JobSettings}. Runs on the driver, once. Refuses keys that are no
 * setting (a typo is never silently ignored), values of the wrong type or range, and unknown enum
 * values; each message names the key.
 */
public final class SettingsParser {
  /** How a URI path setting begins: a scheme, a colon and a slash. */
  private static final java.util.regex.Pattern URI_FORM =
      java.util.regex.Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*:/");

  private SettingsParser() {}

  /** Parses {@code file}, falling back to the defaults for keys it leaves out. */
  public static JobSettings parseFile(Path file) {
    if (Files.isDirectory(file)) {
      throw new SettingsException("--config " + file + " is a folder; name the job's .conf "
          + "file in it");
    }
    if (!Files.isRegularFile(file)) {
      throw new SettingsException("Config file not found: " + file);
    }
    Config user;
    try {
      user = ConfigFactory.parseFile(file.toFile(), ConfigParseOptions.defaults()
          .setAllowMissing(false).setIncluder(new RequiredIncludes()));
    } catch (ConfigException e) {
      throw new SettingsException("Cannot parse " + file + ": " + withoutQuotes(e.getMessage()));
    }
    return parse(user, file.toAbsolutePath().getParent().toFile());
  }

  /**
   * The values {@code file} takes from environment variables, for redacting a refusal of the
   * file itself; none when it cannot be read (its refusal then shows no value).
   */
  public static EnvironmentValues environmentValues(Path file) {
    try {
      return EnvironmentValues.of(ConfigFactory.parseFile(file.toFile(),
          ConfigParseOptions.defaults().setAllowMissing(false)
              .setIncluder(new RequiredIncludes())).resolve());
    } catch (RuntimeException e) {
      return EnvironmentValues.NONE;
    }
  }

  /**
   * Parses settings given as a {@link Config}; relative paths resolve against {@code baseDir}
   * (the config file's folder), or stay as given when it is null.
   */
  public static JobSettings parse(Config user, File baseDir) {
    rejectUnknownKeys(user);
    Config c;
    try {
      c = user.withFallback(defaults()).resolve();
      return build(user, c, baseDir);
    } catch (ConfigException e) {
      throw new SettingsException(e.getMessage());
    }
  }

  /** Every setting's default, from {@link Settings} (reference.conf documents the same). */
  static Config defaults() {
    Map<String, Object> values = new LinkedHashMap<>();
    for (Setting<?> setting : Settings.ALL) {
      values.put(setting.key(), setting.defaultValue());
    }
    return ConfigFactory.parseMap(values, "defaults of io.corpus.encoder.config.Settings");
  }

  /** The settings of a job's file, as read (defaults filled in), for the shared readings. */
  private record FileValues(Config user, Config c) implements SettingValues {
    @Override
    public <T> T value(Setting<T> setting) {
      return setting.read(c);
    }

    @Override
    public boolean given(Setting<?> setting) {
      return user.hasPath(setting.key());
    }

    @Override
    public SettingRules.Naming naming() {
      return SettingRules.Naming.KEYS;
    }
  }

  private static JobSettings build(Config user, Config c, File baseDir) {
    FileValues values = new FileValues(user, c);
    JobSettings.Weights weights = weights(values, c, baseDir);
    ModelFolder folder = weights.isFolder()
        ? JobSettings.readFolder(weights.folder(), values) : null;
    JobSettings.Input input = input(values, c, baseDir, folder);
    ModelSettings model = folder != null
        ? folder.settings(givenModelKeys(user, c))
        : modelSettings(c);
    SettingRules.keptMaps(values);
    double sample = Settings.ATTENTION_SAMPLE.read(c);
    List<String> ids = Settings.ATTENTION_IDS.read(c);
    AttentionOutputs attention = new AttentionOutputs(
        Settings.ATTENTION_ENABLED.read(c),
        Settings.ATTENTION_LAYERS.read(c),
        Settings.ATTENTION_HEADS.read(c),
        sample,
        new TreeSet<>(ids),
        choice(c, Settings.ATTENTION_FORMAT, AttentionOutputs.MapFormat.values()),
        Settings.ATTENTION_TOP_K.read(c),
        Settings.ATTENTION_AVERAGE_HEADS.read(c),
        Settings.ATTENTION_STATS.read(c),
        Settings.ATTENTION_ROLLOUT.read(c),
        choice(c, Settings.ATTENTION_MEASURE, AttentionOutputs.Measure.values()),
        statsBy(c),
        Settings.ATTENTION_IMPORTANCE.read(c),
        Settings.ATTENTION_IMPORTANCE_SAMPLE.read(c));
    JobSettings.Report report = new JobSettings.Report(
        Settings.REPORT_ENABLED.read(c),
        Settings.REPORT_SEQUENCES.read(c),
        Settings.REPORT_MAX_TOKENS.read(c),
        Settings.REPORT_COLOR_COLUMN.read(c),
        Settings.REPORT_MAP_POINTS.read(c),
        Settings.REPORT_NEIGHBOURS.read(c),
        Settings.REPORT_DUPLICATES_ABOVE.read(c));
    OutputChoices choices = OutputChoices.of(values, folder);
    Pooling pooling = choices.pooling();
    boolean mapped = pooling.dense() && report.mapPoints() > 0;
    if (report.enabled() && !attention.stats() && !attention.enabled() && !mapped) {
      throw new SettingsException("output.report.enabled needs something to show: "
          + "output.attention.enabled or output.attention.stats = true (the head view), or a "
          + "pooled vector (output.pooling other than none or splade) for the corpus map");
    }
    Quantization quantize = choices.quantization();
    String ranges = Settings.QUANTIZE_RANGES.read(c).isEmpty() ? ""
        : path(c, Settings.QUANTIZE_RANGES, baseDir);
    if (quantize != Quantization.NONE && report.enabled() && report.mapPoints() > 0) {
      throw new SettingsException("output.report's corpus map reads float pooled vectors, and "
          + "output.quantize = " + quantize.configName() + " writes none: set "
          + "output.report.map-points = 0, or quantize in a job of its own");
    }
    SettingRules.pooledVector(pooling, choices.normalize(), attention.importance(),
        SettingRules.Naming.KEYS);
    JobSettings.Output output = new JobSettings.Output(
        path(c, Settings.OUTPUT_PATH, baseDir),
        choice(c, Settings.OUTPUT_MODE, JobSettings.OutputMode.values()),
        choices,
        Settings.TOKEN_EMBEDDINGS.read(c),
        Settings.ENTITIES.read(c),
        attention,
        report,
        ranges);
    JobSettings.Execution execution = new JobSettings.Execution(
        Settings.BATCH_TOKENS.read(c),
        Settings.READER_BATCH_ROWS.read(c),
        Settings.MIN_PARTITIONS.read(c),
        Settings.PROGRESS.read(c),
        Settings.RESUME.read(c));
    Map<String, Object> given = new LinkedHashMap<>();
    Map<String, Object> used = new LinkedHashMap<>();
    for (Setting<?> setting : Settings.ALL) {
      Object value = setting.read(c);
      used.put(setting.key(), value);
      if (sets(user, setting.key())) {
        given.put(setting.key(), value);
      }
    }
    used.put(Settings.MAX_TOKENS.key(), input.maxTokens());
    used.putAll(choices.used());
    used.put(Settings.QUANTIZE_RANGES.key(), output.quantizeRanges());
    if (folder != null) {
      used.putAll(Settings.architectureOf(model));
      used.put(Settings.NAMING.key(), null);   // a folder's family names its tensors
    }
    return new JobSettings(input, weights, model, output, execution, EnvironmentValues.of(c),
        given, used);
  }

  /**
   * Whether the user's configuration sets {@code key}, looked up without resolving it: a value
   * such as {@code ${?VARIABLE}} is resolved only in the merged configuration.
   */
  private static boolean sets(Config user, String key) {
    ConfigValue value = user.root();
    for (String part : ConfigUtil.splitPath(key)) {
      if (!(value instanceof ConfigObject object) || !object.containsKey(part)) {
        return false;
      }
      value = object.get(part);
    }
    return true;
  }

  /** model.path or model.weights, exactly one. */
  private static JobSettings.Weights weights(SettingValues values, Config c, File baseDir) {
    boolean folder = SettingRules.fromFolder(values);
    Precision precision = choice(c, Settings.PRECISION, Precision.values());
    return folder
        ? new JobSettings.Weights("", TensorNaming.BERT, path(c, Settings.MODEL_PATH, baseDir),
            precision)
        : new JobSettings.Weights(path(c, Settings.MODEL_WEIGHTS, baseDir),
            choice(c, Settings.NAMING, TensorNaming.values()), "", precision);
  }

  /** The input columns: one of embeddings, ids and text, and what goes with it. */
  private static JobSettings.Input input(FileValues values, Config c, File baseDir,
      ModelFolder folder) {
    InputKind kind = SettingRules.inputKind(values);
    SettingRules.inputModel(kind, folder, SettingRules.Naming.KEYS);
    String ids = Settings.IDS_COLUMN.read(c).trim();
    List<String> pair = Settings.TEXT_PAIR_COLUMNS.read(c);
    String text = pair.isEmpty() ? Settings.TEXT_COLUMN.read(c).trim() : pair.get(0).trim();
    String embeddings = kind == InputKind.EMBEDDINGS ? nonEmpty(c, Settings.EMBEDDINGS_COLUMN)
        : "";
    String typeIds = Settings.TYPE_IDS_COLUMN.read(c).trim();
    String mask = Settings.MASK_COLUMN.read(c).trim();
    SettingRules.limits(kind, values);
    int maxLength = Settings.MAX_LENGTH.read(c);
    int maxTokens = Settings.MAX_TOKENS.read(c);
    if (kind != InputKind.EMBEDDINGS) {
      maxTokens = folder.tokenLimit(maxTokens, "input.max-tokens",
          SettingRules.queries(values));
    }
    JobSettings.OnTooLong onTooLong = choice(c, Settings.ON_TOO_LONG,
        JobSettings.OnTooLong.values());
    int chunkOverlap = Settings.CHUNK_OVERLAP.read(c);
    LateChunking.SpanRule late = choice(c, Settings.LATE_CHUNKING,
        LateChunking.SpanRule.values());
    SettingRules.chunking(onTooLong.configName(), late,
        SettingRules.Texts.of(!text.isEmpty(), !pair.isEmpty()), maxTokens, chunkOverlap,
        SettingRules.Naming.KEYS);
    return new JobSettings.Input(
        path(c, Settings.INPUT_PATH, baseDir),
        nonEmpty(c, Settings.ID_COLUMN),
        embeddings, ids, text, pair.isEmpty() ? "" : pair.get(1).trim(), typeIds, mask,
        Settings.TOKENS_COLUMN.read(c).trim(),
        maxLength, maxTokens,
        onTooLong, chunkOverlap, late, Settings.CHUNK_TOKENS.read(c),
        choice(c, Settings.ON_INVALID, JobSettings.OnInvalid.values()));
  }

  /** The model.* keys the job's own file sets, which a model folder must agree with. */
  private static List<ModelFolder.Given> givenModelKeys(Config user, Config c) {
    List<ModelFolder.Given> given = new ArrayList<>();
    for (Setting<?> setting : Settings.ARCHITECTURE) {
      if (user.hasPath(setting.key())) {
        given.add(new ModelFolder.Given(setting.key(), field(setting), setting.read(c)));
      }
    }
    return given;
  }

  /** What {@link ModelFolder.Given} calls an architecture setting: its key without "model.". */
  public static String field(Setting<?> architecture) {
    return architecture.key().substring("model.".length());
  }

  /** The model.* keys of a weights file: every architecture setting from the job's config. */
  private static ModelSettings modelSettings(Config c) {
    int heads = Settings.HEADS.read(c);
    if (heads < 1) {
      throw new SettingsException("model.heads must be set to the number of attention heads (1 or "
          + "more), got " + Setting.shown(c, Settings.HEADS.key(), heads));
    }
    return Settings.weightsFileModel(setting -> setting.read(c));
  }

  /** Refuses a key that is no setting, listing the keys beside it (or the sections). */
  private static void rejectUnknownKeys(Config user) {
    Set<String> keys = new TreeSet<>();
    Settings.ALL.forEach(s -> keys.add(s.key()));
    for (Map.Entry<String, ConfigValue> entry : user.entrySet()) {
      String key = entry.getKey();
      if (!keys.contains(key)) {
        String section = key.contains(".") ? key.substring(0, key.lastIndexOf('.')) : "";
        Set<String> beside = children(keys, section);
        String known = !section.isEmpty() && !beside.isEmpty()
            ? "; keys under " + section + ": " + beside
            : "; sections: " + children(keys, "");
        throw new SettingsException("Unknown setting '" + key + "' ("
            + entry.getValue().origin().description() + ")" + known);
      }
    }
  }

  /** The names one level below {@code section} ("" = the top) among {@code keys}. */
  private static Set<String> children(Set<String> keys, String section) {
    String prefix = section.isEmpty() ? "" : section + ".";
    Set<String> names = new TreeSet<>();
    for (String key : keys) {
      if (key.startsWith(prefix)) {
        String rest = key.substring(prefix.length());
        names.add(rest.contains(".") ? rest.substring(0, rest.indexOf('.')) : rest);
      }
    }
    return names;
  }

  private static String nonEmpty(Config c, Setting<String> setting) {
    String value = setting.read(c).trim();
    if (value.isEmpty()) {
      throw new SettingsException(setting.key() + " must be set");
    }
    return value;
  }

  /**
   * A path setting. A URI ({@code file:/abs}, {@code hdfs://host/…}, {@code s3a://…}: a scheme,
   * a colon, a slash) is kept as given; any other value is a local path, whatever characters
   * it holds ({@code a:b} included): absolute ones normalized, relative ones resolved against the
   * folder of the file that sets it (an included file's own folder), else against
   * {@code baseDir} (null: as given).
   */
  private static String path(Config c, Setting<String> setting, File baseDir) {
    String value = nonEmpty(c, setting);
    if (URI_FORM.matcher(value).lookingAt()) {
      return value;   // scheme:/… or scheme://…, read by Hadoop as it reads it
    }
    if (new File(value).isAbsolute()) {
      return Path.of(value).normalize().toString();   // //tmp/x is /tmp/x, not host "tmp"
    }
    String origin = c.getValue(setting.key()).origin().filename();
    File base = origin != null ? new File(origin).getAbsoluteFile().getParentFile() : baseDir;
    return base == null ? value : new File(base, value).toPath().normalize().toString();
  }

  /** A choice setting as the enum constant it names (the setting has checked the name). */
  /**
   * The columns head-stats/ is grouped by: only with the statistics written, each named once,
   * none named as a column of the table itself (layer, head, rows, a statistic).
   */
  private static List<String> statsBy(Config c) {
    List<String> columns = Settings.ATTENTION_STATS_BY.read(c);
    if (columns.isEmpty()) {
      return columns;
    }
    if (!Settings.ATTENTION_STATS.read(c)) {
      throw new SettingsException("output.attention.stats-by = " + columns + " groups the "
          + "per-head statistics; set output.attention.stats = true to write them");
    }
    List<String> taken = new ArrayList<>(List.of("layer", "head", "rows"));
    for (HeadStatistics.Stat stat : HeadStatistics.Stat.values()) {
      taken.add(stat.column());
    }
    Set<String> seen = new HashSet<>();
    for (String column : columns) {
      if (column.isBlank() || !seen.add(column) || taken.contains(column)) {
        throw new SettingsException("output.attention.stats-by = " + columns + ": each entry "
            + "must name a different input column, and none of " + taken + " (head-stats/'s "
            + "own columns); '" + column + "' cannot be one");
      }
    }
    return columns;
  }

  private static <E extends ConfigName> E choice(Config c, Setting<String> setting, E[] values) {
    String value = setting.read(c);
    for (E e : values) {
      if (e.configName().equals(value)) {
        return e;
      }
    }
    throw new IllegalStateException(setting + " accepted '" + value + "', which no constant "
        + "names");
  }

  /**
   * A parser's message without the quoted text it echoes from the file: a file that is not a
   * config (a key file, a binary) must not be shown in an error.
   */
  static String withoutQuotes(String message) {
    // A quoted run of punctuation is the parser's expected token (')', '}', ','): kept.
    return message.replaceAll("'(?![\\p{Punct}]{1,2}')[^'\\n]*'", "'…'")
        .replaceAll("\"(?![\\p{Punct}]{1,2}\")[^\"\\n]*\"", "\"…\"");
  }
}
