package io.corpus.encoder.pipeline;

import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.text.TokenizerConfig;
import io.corpus.encoder.weights.AskedHead;
import io.corpus.encoder.weights.FolderWeights;
import io.corpus.encoder.weights.ModelFolder;
import io.corpus.encoder.weights.Reranker;
import io.corpus.encoder.weights.TensorNaming;
import io.corpus.encoder.weights.WeightsException;
import io.corpus.encoder.weights.WeightsLoader;
import io.corpus.encoder.weights.WeightsMemory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A model as the driver loads it, once, before any task: its weights (checked), how it computes,
 * and, from a Hugging Face folder, the folder itself (pooling, Normalize, token limits) and its
 * tokenizer.json's bytes, which text input ships to the tasks. Not meant to be serialized: tasks
 * get {@link #weights()} through a {@link WeightsHandle}.
 *
 * @param weights the embedding layer (folder only) and the encoder layers
 * @param settings how the encoder computes
 * @param folder the model folder, or null for a weights file
 * @param tokenizerJson tokenizer.json's contents, or null when the folder has none
 * @param parameters the model's parameters, by its checkpoint's headers (what {@code --check}
 *     prints) and its modules' own files
 */
public record LoadedModel(EncoderModel weights, ModelSettings settings, ModelFolder folder,
    byte[] tokenizerJson, long parameters) {
  private static final Logger LOG = LoggerFactory.getLogger(LoadedModel.class);

  /**
   * The encoder layers of a safetensors file, their weight products in {@code precision}, each
   * layer converted as it is read; or an error in one line, before anything is read, when this
   * processor does not run it.
   */
  public static LoadedModel fromFile(Path file, TensorNaming naming, ModelSettings settings,
      Precision precision) {
    refuseIfNotRun(precision);
    return new LoadedModel(EncoderModel.layersOnly(WeightsLoader.load(file, naming, settings,
        precision)), settings, null, null, WeightsMemory.parameters(file));
  }

  /**
   * A whole model folder: the embedding layer and the encoder layers, computed as
   * {@code settings} say (from {@link ModelFolder#settings}); the tensors left out (pooler, task
   * heads) are logged.
   */
  public static LoadedModel fromFolder(ModelFolder folder, ModelSettings settings) {
    return fromFolder(folder, settings, false);
  }

  /** As {@link #fromFolder(ModelFolder, ModelSettings)}, with SPLADE's head when asked. */
  public static LoadedModel fromFolder(ModelFolder folder, ModelSettings settings,
      boolean splade) {
    return fromFolder(folder, settings, splade ? Set.of(AskedHead.SPLADE) : AskedHead.NONE,
        Precision.FLOAT32);
  }

  /**
   * As {@link #fromFolder(ModelFolder, ModelSettings, boolean)}, with the heads asked for, the
   * weight products in
   * {@code precision}: each layer converted as it is read (the driver holds one layer in float32
   * at a time), or an error in one line, before anything is read, when this processor does not
   * run it.
   */
  public static LoadedModel fromFolder(ModelFolder folder, ModelSettings settings,
      Set<AskedHead> heads, Precision precision) {
    refuseIfNotRun(precision);
    FolderWeights w = WeightsLoader.load(folder, heads, precision);
    if (!w.leftOut().isEmpty()) {
      LOG.info("Left out of the model folder: {} tensors the encoder does not use: {}",
          w.leftOut().size(), w.leftOut());
    }
    return new LoadedModel(w.model().in(precision), settings, folder, tokenizerOf(folder),
        w.parameters());
  }

  /**
   * The tokenizer.json a folder runs, in its reranker's template where it has one; null when
   * the folder has none.
   */
  public static byte[] tokenizerOf(ModelFolder folder) {
    byte[] tokenizer = folder.tokenizer().map(LoadedModel::tokenizerJson).orElse(null);
    if (tokenizer != null && folder.reranker() != Reranker.NONE) {
      tokenizer = TokenizerConfig.wrapped(tokenizer, folder.reranker().prefix(),
          folder.reranker().middle(), folder.reranker().suffix());
    }
    return tokenizer;
  }

  /**
   * The tokenizer.json to run, as transformers loads it beside the folder's
   * tokenizer_config.json ({@link TokenizerConfig}).
   */
  private static byte[] tokenizerJson(Path file) {
    Path config = file.resolveSibling("tokenizer_config.json");
    try {
      return TokenizerConfig.applied(Files.readAllBytes(file), Files.isRegularFile(config)
          ? ModelFolder.json(config) : null, config.toString());
    } catch (IOException e) {
      throw new WeightsException("Cannot read " + file + ": " + e.getMessage());
    } catch (IllegalArgumentException e) {
      throw new WeightsException(e.getMessage());
    }
  }

  /**
   * This model with its weight products in {@code precision} (float32's on the library that
   * multiplies them faster here, {@link io.corpus.encoder.kernel.Float32Products}), or an error
   * in one line when this processor does not run it ({@link Precision#refusal}).
   */
  public LoadedModel in(Precision precision) {
    refuseIfNotRun(precision);
    return new LoadedModel(weights.in(precision), settings, folder, tokenizerJson, parameters);
  }

  private static void refuseIfNotRun(Precision precision) {
    precision.refusal().ifPresent(why -> {
      throw new IllegalArgumentException(why);
    });
  }

  public boolean isFolder() {
    return folder != null;
  }

  /**
   * The most positions a sequence may take: the folder's usable positions, else the weights'
   * learned position table (0 without one).
   */
  public int maxPositions() {
    return folder != null ? folder.usablePositions() : weights.encoder().maxPositions();
  }
}
