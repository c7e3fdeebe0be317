package io.corpus.encoder.config;

import io.corpus.encoder.common.ConfigName;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.weights.TensorNaming;
import java.io.Serializable;

/** Everything one encode job needs, as parsed from its configuration by {@link SettingsParser}. */
public record JobSettings(
    Input input,
    Weights weights,
    ModelSettings model,
    Output output,
    Execution execution) implements Serializable {

  /**
   * Where the sequences come from. {@code maskColumn} and {@code tokensColumn} are empty when
   * there is none; {@code maxLength} 0 means no limit.
   */
  public record Input(String path, String idColumn, String embeddingsColumn, String maskColumn,
      String tokensColumn, int maxLength, OnInvalid onInvalid) implements Serializable {
    public boolean hasMask() {
      return !maskColumn.isEmpty();
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

  /** The weights file and how its tensors are named. */
  public record Weights(String path, TensorNaming naming) implements Serializable {}

  /** What happens to an existing output folder. */
  public enum OutputMode implements ConfigName {
    ERROR_IF_EXISTS("error-if-exists"), OVERWRITE("overwrite");

    private final String configName;

    OutputMode(String configName) {
      this.configName = configName;
    }

    @Override
    public String configName() {
      return configName;
    }
  }

  /** Where and what to write. */
  public record Output(String path, OutputMode mode, Pooling pooling, AttentionOutputs attention,
      Report report) implements Serializable {}

  /** The HTML report: whether to write it, heatmaps of how many sequences, up to how many tokens. */
  public record Report(boolean enabled, int sequences, int maxTokens) implements Serializable {}

  /**
   * How the work is cut up. {@code minPartitions} 0 means the number of task slots;
   * {@code readerBatchRows} is the Parquet reader's batch, in rows.
   */
  public record Execution(int batchTokens, int readerBatchRows, int minPartitions,
      boolean progress) implements Serializable {}
}
