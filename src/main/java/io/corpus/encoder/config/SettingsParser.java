package io.corpus.encoder.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigValue;
import io.corpus.encoder.common.ConfigName;
import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.PositionalEncoding;
import io.corpus.encoder.weights.ModelFolder;
import io.corpus.encoder.weights.TensorNaming;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Parses a job's HOCON file, over the defaults in {@code reference.conf}, into {@link JobSettings}.
 * Runs on the driver, once. Refuses keys that {@code reference.conf} does not list (a typo is never
 * silently ignored), values of the wrong type or range, and unknown enum values; each message names
 * the key.
 */
public final class SettingsParser {
  private SettingsParser() {}

  /** Parses {@code file}, falling back to {@code reference.conf} for keys it leaves out. */
  public static JobSettings parseFile(Path file) {
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
   * Parses settings given as a {@link Config}; relative paths resolve against {@code baseDir}
   * (the config file's folder), or stay as given when it is null.
   */
  public static JobSettings parse(Config user, File baseDir) {
    Config reference = ConfigFactory.defaultReference();
    // The keys this job knows: reference.conf's own (defaultReference also holds every system
    // property, java.*, user.* ..., which are no settings of this job).
    rejectUnknownKeys(user, ConfigFactory.parseResources(SettingsParser.class.getClassLoader(),
        "reference.conf"));
    Config c;
    try {
      c = user.withFallback(reference).resolve();
      return build(user, c, baseDir);
    } catch (ConfigException e) {
      throw new SettingsException(e.getMessage());
    }
  }

  private static JobSettings build(Config user, Config c, File baseDir) {
    JobSettings.Weights weights = weights(c, baseDir);
    ModelFolder folder = weights.isFolder() ? ModelFolder.read(Path.of(weights.folder())) : null;
    JobSettings.Input input = input(user, c, baseDir, folder);
    ModelSettings model = folder != null
        ? folder.settings(givenModelKeys(user, c), c.getBoolean("model.causal"),
            atLeast(c, "model.window", 0))
        : modelSettings(c);
    double sample = c.getDouble("output.attention.sample");
    if (!(sample > 0 && sample <= 1)) {
      throw new SettingsException("output.attention.sample must be in (0, 1], got "
          + shown(c, "output.attention.sample", sample));
    }
    List<String> ids = c.getStringList("output.attention.ids");
    if (!ids.isEmpty() && sample < 1) {
      throw new SettingsException("Set output.attention.ids or output.attention.sample, not "
          + "both (ids " + ids + ", sample " + sample + ")");
    }
    AttentionOutputs attention = new AttentionOutputs(
        c.getBoolean("output.attention.enabled"),
        indices(c, "output.attention.layers"),
        indices(c, "output.attention.heads"),
        sample,
        new java.util.TreeSet<>(ids),
        choice(c, "output.attention.format", AttentionOutputs.MapFormat.values()),
        atLeast(c, "output.attention.top-k", 1),
        c.getBoolean("output.attention.average-heads"),
        c.getBoolean("output.attention.stats"),
        c.getBoolean("output.attention.rollout"));
    JobSettings.Report report = new JobSettings.Report(
        c.getBoolean("output.report.enabled"),
        atLeast(c, "output.report.sequences", 0),
        atLeast(c, "output.report.max-tokens", 1));
    if (report.enabled() && !attention.stats()
        && !(attention.enabled() && attention.format() == AttentionOutputs.MapFormat.FULL)) {
      throw new SettingsException("output.report.enabled needs output.attention.stats = true or "
          + "output.attention.enabled = true with format = full: the report draws those");
    }
    JobSettings.Output output = new JobSettings.Output(
        path(c, "output.path", baseDir),
        choice(c, "output.mode", JobSettings.OutputMode.values()),
        pooling(c, folder),
        normalize(c, folder),
        c.getBoolean("output.token-embeddings"),
        attention,
        report);
    JobSettings.Execution execution = new JobSettings.Execution(
        atLeast(c, "execution.batch-tokens", 1),
        atLeast(c, "execution.reader-batch-rows", 1),
        atLeast(c, "execution.min-partitions", 0),
        c.getBoolean("execution.progress"));
    return new JobSettings(input, weights, model, output, execution);
  }

  /** model.path or model.weights, exactly one. */
  private static JobSettings.Weights weights(Config c, File baseDir) {
    boolean folder = !c.getString("model.path").isBlank();
    boolean file = !c.getString("model.weights").isBlank();
    if (folder == file) {
      throw new SettingsException(folder
          ? "Set model.path (a Hugging Face model folder) or model.weights (a safetensors file "
              + "of encoder layers), not both"
          : "model.path (a Hugging Face model folder) or model.weights (a safetensors file of "
              + "encoder layers) must be set");
    }
    return folder
        ? new JobSettings.Weights("", TensorNaming.BERT, path(c, "model.path", baseDir))
        : new JobSettings.Weights(path(c, "model.weights", baseDir),
            choice(c, "model.naming", TensorNaming.values()), "");
  }

  /** The input columns: one of embeddings, ids and text, and what goes with it. */
  private static JobSettings.Input input(Config user, Config c, File baseDir, ModelFolder folder) {
    String ids = c.getString("input.ids-column").trim();
    String text = c.getString("input.text-column").trim();
    boolean embeddingsGiven = user.hasPath("input.embeddings-column");
    int given = (ids.isEmpty() ? 0 : 1) + (text.isEmpty() ? 0 : 1) + (embeddingsGiven ? 1 : 0);
    if (given > 1) {
      throw new SettingsException("Set exactly one of input.embeddings-column, input.ids-column "
          + "and input.text-column; got " + (embeddingsGiven ? "embeddings-column " : "")
          + (ids.isEmpty() ? "" : "ids-column ") + (text.isEmpty() ? "" : "text-column"));
    }
    String embeddings = ids.isEmpty() && text.isEmpty() ? nonEmpty(c, "input.embeddings-column")
        : "";
    String typeIds = c.getString("input.type-ids-column").trim();
    if (!typeIds.isEmpty() && ids.isEmpty()) {
      throw new SettingsException("input.type-ids-column goes with input.ids-column (text gets "
          + "its type ids from the tokenizer)");
    }
    String mask = c.getString("input.mask-column").trim();
    if (!mask.isEmpty() && !text.isEmpty()) {
      throw new SettingsException("input.mask-column does not apply to input.text-column: text "
          + "has no padding");
    }
    int maxLength = atLeast(c, "input.max-length", 0);
    int maxTokens = atLeast(c, "input.max-tokens", 0);
    if (embeddings.isEmpty()) {
      String column = text.isEmpty() ? "input.ids-column" : "input.text-column";
      if (folder == null) {
        throw new SettingsException(column + " needs model.path, a Hugging Face model folder: "
            + "its embedding layer" + (text.isEmpty() ? "" : " and tokenizer.json")
            + " turn " + (text.isEmpty() ? "token ids" : "text") + " into the encoder's input");
      }
      if (!text.isEmpty() && folder.tokenizer().isEmpty()) {
        throw new SettingsException("input.text-column needs the model folder's tokenizer.json, "
            + "which is missing from " + folder.folder());
      }
      if (maxLength > 0) {
        throw new SettingsException("input.max-length applies to input.embeddings-column; for "
            + "token ids and text set input.max-tokens");
      }
      maxTokens = folder.tokenLimit(maxTokens, "input.max-tokens");
    } else if (maxTokens > 0) {
      throw new SettingsException("input.max-tokens applies to token ids and text; for "
          + "input.embeddings-column set input.max-length");
    }
    return new JobSettings.Input(
        path(c, "input.path", baseDir),
        nonEmpty(c, "input.id-column"),
        embeddings, ids, text, typeIds, mask,
        c.getString("input.tokens-column").trim(),
        maxLength, maxTokens,
        choice(c, "input.on-too-long", JobSettings.OnTooLong.values()),
        choice(c, "input.on-invalid", JobSettings.OnInvalid.values()));
  }

  /** The model.* keys the job's own file sets, which a model folder must agree with. */
  private static List<ModelFolder.Given> givenModelKeys(Config user, Config c) {
    List<ModelFolder.Given> given = new ArrayList<>();
    for (String field : List.of("heads", "activation", "layer-norm-eps", "norm-first",
        "final-norm", "positional", "naming")) {
      String key = "model." + field;
      if (user.hasPath(key)) {
        Object value = switch (field) {
          case "heads" -> c.getInt(key);
          case "layer-norm-eps" -> c.getDouble(key);
          case "norm-first", "final-norm" -> c.getBoolean(key);
          default -> c.getString(key);
        };
        given.add(new ModelFolder.Given(key, field, value));
      }
    }
    return given;
  }

  /** The model.* keys of a weights file: every architecture setting from the job's config. */
  private static ModelSettings modelSettings(Config c) {
    int heads = c.getInt("model.heads");
    if (heads < 1) {
      throw new SettingsException("model.heads must be set to the number of attention heads (1 or "
          + "more), got " + shown(c, "model.heads", heads));
    }
    double eps = c.getDouble("model.layer-norm-eps");
    if (!(eps > 0) || Double.isInfinite(eps)) {
      throw new SettingsException("model.layer-norm-eps must be a positive number, got "
          + shown(c, "model.layer-norm-eps", eps));
    }
    return new ModelSettings(
        heads,
        choice(c, "model.activation", Activation.values()),
        c.getBoolean("model.norm-first"),
        c.getBoolean("model.final-norm"),
        eps,
        c.getBoolean("model.causal"),
        atLeast(c, "model.window", 0),
        choice(c, "model.positional", PositionalEncoding.values()));
  }

  /** output.pooling: auto is the folder's 1_Pooling mode, else mean. */
  private static Pooling pooling(Config c, ModelFolder folder) {
    String value = c.getString("output.pooling");
    if (!value.equals("auto")) {
      choice(c, "output.pooling", Pooling.values());   // an unknown name, refused naming the key
    }
    return ModelFolder.pooling(value, folder);
  }

  /** output.normalize: auto is whether the folder's pipeline ends in Normalize. */
  private static boolean normalize(Config c, ModelFolder folder) {
    try {
      return ModelFolder.normalize(c.getString("output.normalize"), folder);
    } catch (IllegalArgumentException e) {
      throw new SettingsException("output." + e.getMessage());
    }
  }

  private static void rejectUnknownKeys(Config user, Config reference) {
    for (Map.Entry<String, ConfigValue> entry : user.entrySet()) {
      String key = entry.getKey();
      if (!reference.hasPathOrNull(key)) {
        String section = key.contains(".") ? key.substring(0, key.lastIndexOf('.')) : "";
        String known = !section.isEmpty() && reference.hasPath(section)
            ? "; keys under " + section + ": " + new TreeSet<>(reference.getConfig(section).root()
                .keySet())
            : "; sections: " + new TreeSet<>(reference.root().keySet());
        throw new SettingsException("Unknown setting '" + key + "' ("
            + entry.getValue().origin().description() + ")" + known);
      }
    }
  }

  private static String nonEmpty(Config c, String key) {
    String value = c.getString(key).trim();
    if (value.isEmpty()) {
      throw new SettingsException(key + " must be set");
    }
    return value;
  }

  /**
   * A path setting; a relative one resolves against the folder of the file that sets it (an
   * included file's own folder), else against {@code baseDir} (null: as given).
   */
  private static String path(Config c, String key, File baseDir) {
    String value = nonEmpty(c, key);
    if (value.contains("://") || new File(value).isAbsolute()) {
      return value;
    }
    String origin = c.getValue(key).origin().filename();
    File base = origin != null ? new File(origin).getAbsoluteFile().getParentFile() : baseDir;
    return base == null ? value : new File(base, value).toPath().normalize().toString();
  }

  private static int atLeast(Config c, String key, int minimum) {
    int value = c.getInt(key);
    if (value < minimum) {
      throw new SettingsException(key + " must be at least " + minimum + ", got "
          + shown(c, key, value));
    }
    return value;
  }

  private static List<Integer> indices(Config c, String key) {
    List<Integer> values = c.getIntList(key);
    for (int v : values) {
      if (v < 0) {
        throw new SettingsException(key + " holds " + v + "; indices are 0-based and not negative");
      }
    }
    return values;
  }

  /**
   * A value for a message: itself, or, when it came from an environment variable (which may hold
   * a secret), only that fact.
   */
  private static String shown(Config c, String key, Object value) {
    String origin = c.getValue(key).origin().description();
    return origin.startsWith("env var") ? "(a value from an environment variable)"
        : String.valueOf(value);
  }

  /**
   * A parser's message without the quoted text it echoes from the file: a file that is not a
   * config (a key file, a binary) must not be shown in an error.
   */
  static String withoutQuotes(String message) {
    return message.replaceAll("'[^'\\n]*'", "'…'").replaceAll("\"[^\"\\n]*\"", "\"…\"");
  }

  private static <E extends ConfigName> E choice(Config c, String key, E[] values) {
    String value = c.getString(key);
    for (E e : values) {
      if (e.configName().equals(value)) {
        return e;
      }
    }
    throw new SettingsException(key + " = " + shown(c, key, "'" + value + "'") + " is not one of "
        + ConfigName.allowed(values) + (key.equals("output.pooling") ? ", auto" : ""));
  }

}
