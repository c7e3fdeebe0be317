package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.kernel.Bfloat16Matrix;
import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.model.BeforePooling;
import io.corpus.encoder.model.DenseLayer;
import io.corpus.encoder.model.EmbeddingWeights;
import io.corpus.encoder.model.Encoder;
import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.Head;
import io.corpus.encoder.model.LayerWeights;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.Parameters;
import io.corpus.encoder.model.MultiVectorHead;
import io.corpus.encoder.model.Norm;
import io.corpus.encoder.model.PositionalEncoding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Loads {@link EncoderWeights} from a safetensors file on the driver. The layer count L, width E,
 * feed-forward width F and position count P come from the file; everything else is checked against
 * them and the settings: every tensor present with its shape, no tensor left over, heads dividing
 * E, every value finite. Errors name the tensor, the expected and the actual shape. A Hugging Face
 * model folder ({@link ModelFolder}) loads whole, its embedding layer included.
 */
public final class WeightsLoader {
  /**
   * Threads that read a folder's layers: the driver's cores, at most two (the system property
   * {@code encoder.load-threads} sets it; tests that count one thread's allocations set 1).
   */
  private static int loadThreads() {
    return Integer.getInteger("encoder.load-threads",
        Math.min(2, Runtime.getRuntime().availableProcessors()));
  }

  static final String LM_HEAD = "lm_head.weight";

  private WeightsLoader() {}

  /** The encoder layers of a safetensors file, in float32. */
  public static EncoderWeights load(Path path, TensorNaming naming, ModelSettings settings) {
    return load(path, naming, settings, Precision.FLOAT32);
  }

  /**
   * The encoder layers of a safetensors file, each layer's matrices put in {@code precision} as
   * soon as the layer is read, as a folder's are: the float32 copy of only one layer is held at
   * a time, not the whole model's beside its converted one.
   */
  public static EncoderWeights load(Path path, TensorNaming naming, ModelSettings settings,
      Precision precision) {
    Checkpoint file = Checkpoint.of(path);
    Source source = new Source(file, precision);
    EncoderWeights weights = readEncoder(file, source, naming, settings, precision);
    source.checkAllUsed(settings);
    return weights;
  }

  /**
   * A whole checkpoint of the folder's family from a Hugging Face model folder (with or without
   * its task prefix, {@code bert.} or {@code roberta.}, in one file or shards): the embedding
   * layer and the encoder layers, checked against {@code config.json}, and the classifier head
   * when config.json names one. Other heads (a pooler, a masked-LM head) are left out and listed.
   */
  public static FolderWeights load(ModelFolder model) {
    return load(model, false);
  }

  /**
   * As {@link #load(ModelFolder)}, with the masked-LM head SPLADE reads when {@code splade}.
   */
  public static FolderWeights load(ModelFolder model, boolean splade) {
    return load(model, splade ? Set.of(AskedHead.SPLADE) : AskedHead.NONE, Precision.FLOAT32);
  }

  /**
   * As {@link #load(ModelFolder)}, with the heads asked for, each encoder layer's matrices put in
   * {@code precision} as soon as the layer is read, so that the float32 copy of only one layer
   * is held at a time.
   */
  public static FolderWeights load(ModelFolder model, Set<AskedHead> heads,
      Precision precision) {
    if (model.family() instanceof StaticEmbeddings lookup) {
      if (!heads.isEmpty()) {
        throw new WeightsException(model.folder() + " holds static embeddings (" + lookup.name()
            + "): a vector per text, the mean of its tokens', and no SPLADE, lexical or ColBERT "
            + "head");
      }
      WeightsMemory.refuseIfTooLarge(lookup.heapBytes(), Runtime.getRuntime().maxMemory(), model,
          precision);
      EncoderModel table = new EncoderModel(lookup.load(), EncoderWeights.NONE, List.of(),
          dense(model.dense(), model), BeforePooling.NOTHING);
      return new FolderWeights(table, List.of(), Parameters.count(table));
    }
    boolean splade = heads.contains(AskedHead.SPLADE);
    ModelFamily family = model.family();
    HeadTensors headTensors = family.names().heads();
    boolean perToken = model.classifier().map(ModelFolder.Classifier::perToken).orElse(false);
    // a token classifier's checkpoint keeps its head, not a pooler it may still carry
    List<String> kept = new ArrayList<>(family.keptPrefixes(
        model.classifier().isPresent() && !perToken));
    if (perToken) {
      kept.addAll(headTensors.tokenPrefixes());
    }
    if (model.reranker() != Reranker.NONE) {
      kept.add(LM_HEAD);
    }
    if (splade) {
      if (headTensors.mlm().isEmpty()) {
        throw new WeightsException("SPLADE (output.pooling = splade) needs a masked-language-"
            + "model head, which this job reads for bert, xlm-roberta and distilbert but not for "
            + family.name() + " (" + model.folder() + ")");
      }
      kept.addAll(headTensors.mlm());
    }
    Checkpoint file = Checkpoint.of(model, kept);
    WeightsMemory.refuseIfTooLarge(WeightsMemory.heapBytes(file, family.names().layerPrefix(),
        precision), Runtime.getRuntime().maxMemory(), model, precision);
    Source stored = new Source(file, precision);
    Optional<TaskAdapter.Adapted> adapted = model.task()
        .map(t -> t.merging(stored, file, family.names().taskPrefix()));
    TensorNaming.TensorSource source = adapted.isPresent() ? adapted.get() : stored;
    EmbeddingWeights embeddings = family.embeddings(source, model);
    int layers = countLayers(file, family.names().layerPrefix(), "model_type " + family.name());
    if (layers != model.shape().layers()) {
      throw new WeightsException("config.json says num_hidden_layers = " + model.shape().layers()
          + " but the weights in " + file.path() + " have " + layers);
    }
    // task adapters count what they merge: their layers are read in order, on this thread
    List<LayerWeights> layerWeights = readLayers(layers, adapted.isEmpty() ? loadThreads() : 1,
        i -> family.layer(source, i, model).in(precision));
    EncoderWeights encoder = new EncoderWeights(layerWeights, family.finalNorm(source, model),
        new float[0], family.scoreBiasTable(source, model));
    try {
      Encoder.checkFits(model.settings(), encoder);   // here, not first in a task
    } catch (IllegalArgumentException e) {
      throw new WeightsException(file.path() + " (model_type " + family.name() + "): "
          + e.getMessage());
    }
    List<Head> asked = new ArrayList<>(CheckpointHeads.read(file, stored, model, embeddings,
        splade));
    BeforePooling beforePooling = family.beforePooling(stored, model);
    stored.checkAllUsed(model.settings());
    adapted.ifPresent(TaskAdapter.Adapted::checkAllMerged);
    List<Head> ownFiles = new ArrayList<>();   // heads read from files of their own
    if (heads.contains(AskedHead.COLBERT)) {
      ownFiles.add(model.lateInteraction().isPresent()
          ? new MultiVectorHead(dense(model.lateInteraction().get().projections(), model))
          : M3Heads.colbert(model));
    }
    List<DenseLayer> dense = dense(model.dense(), model);
    if (heads.contains(AskedHead.LEXICAL)) {
      ownFiles.add(M3Heads.lexical(model));
    }
    asked.addAll(ownFiles);
    return new FolderWeights(new EncoderModel(embeddings, encoder, asked, dense, beforePooling),
        file.leftOut(), WeightsMemory.parameters(file, family.names().layerPrefix())
            + Parameters.count(List.of(ownFiles, dense)));
  }

  /**
   * Layers {@code 0..count-1}, in order, read on up to {@code threads} threads. A large model's
   * load is mostly the heap zeroing its new arrays and the kernel their pages (Qwen3-0.6B's
   * 2.4 GB in float32: three quarters of its load), which runs on as many cores as read; at
   * start-up the other core is idle. Each thread holds one layer's float32 copy at a time.
   */
  private static List<LayerWeights> readLayers(int count, int threads,
      IntFunction<LayerWeights> read) {
    if (threads <= 1 || count <= 1) {
      List<LayerWeights> layers = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        layers.add(read.apply(i));
      }
      return layers;
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, count), r -> {
      Thread thread = new Thread(r, "weights-loader");
      thread.setDaemon(true);
      return thread;
    });
    try {
      List<Future<LayerWeights>> futures = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        int layer = i;
        futures.add(pool.submit(() -> read.apply(layer)));
      }
      List<LayerWeights> layers = new ArrayList<>(count);
      for (Future<LayerWeights> future : futures) {
        layers.add(future.get());
      }
      return layers;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException failure) {
        throw failure;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while reading the layers", e);
    } finally {
      pool.shutdownNow();
    }
  }

  /** The Dense modules in {@code folders}, in order, the first reading E values. */
  private static List<DenseLayer> dense(List<Path> folders, ModelFolder model) {
    List<DenseLayer> dense = new ArrayList<>();
    int width = model.shape().width();
    for (Path folder : folders) {
      DenseLayer layer = dense(folder, width, model.settings());
      dense.add(layer);
      width = layer.outWidth();
    }
    return dense;
  }

  /**
   * A sentence-transformers Dense module's folder: config.json ({@code in_features},
   * {@code out_features}, {@code bias}, {@code activation_function}) and model.safetensors
   * ({@code linear.weight}, {@code linear.bias}); it must read {@code width} values.
   */
  private static DenseLayer dense(Path folder, int width, ModelSettings settings) {
    Path config = folder.resolve("config.json");
    JsonNode c = ModelFolder.json(config);
    int in = c.path("in_features").asInt(0);
    int out = c.path("out_features").asInt(0);
    if (c.path("use_residual").asBoolean(false)) {
      throw new WeightsException(config + ": use_residual = true (PyLate's Dense with a "
          + "residual) is not supported");
    }
    if (in != width || out < 1) {
      throw new WeightsException(config + ": in_features = " + in + " and out_features = " + out
          + ", expected " + width + " (what the module before gives) and a positive width");
    }
    String function = c.path("activation_function").asText("torch.nn.modules.linear.Identity");
    DenseLayer.Activation activation = switch (function.substring(function.lastIndexOf('.') + 1)) {
      case "Identity" -> DenseLayer.Activation.IDENTITY;
      case "Tanh" -> DenseLayer.Activation.TANH;
      case "ReLU" -> DenseLayer.Activation.RELU;
      case "GELU" -> DenseLayer.Activation.GELU;
      default -> throw new WeightsException(config + ": activation_function '" + function
          + "' is not supported (Identity, Tanh, ReLU, GELU)");
    };
    Path weights = folder.resolve("model.safetensors");
    if (!Files.isRegularFile(weights)) {
      throw new WeightsException("No model.safetensors in " + folder + " (a Dense module's "
          + "pytorch_model.bin is not loaded: unpickling can run code)");
    }
    Source source = new Source(Checkpoint.of(weights), Precision.FLOAT32);
    float[] w = source.take("linear.weight", out, in);
    float[] b = c.path("bias").asBoolean(true) ? source.take("linear.bias", out) : new float[0];
    source.checkAllUsed(settings);
    return new DenseLayer(w, b, in, activation);
  }

  private static EncoderWeights readEncoder(Checkpoint file, Source source, TensorNaming naming,
      ModelSettings settings, Precision precision) {
    Path path = file.path();
    int layers = countLayers(file, naming.layerPrefix(), "model.naming = "
        + naming.configName());
    int width = lengthOf(file, naming.widthTensor(0));
    int ffnWidth = lengthOf(file, naming.ffnBiasTensor(0));
    if (width % settings.heads() != 0) {
      throw new WeightsException("model.heads = " + settings.heads() + " does not divide the width "
          + width + " of the weights in " + path);
    }
    List<LayerWeights> layerWeights = new ArrayList<>();
    for (int i = 0; i < layers; i++) {
      layerWeights.add(naming.readLayer(source, i, width, ffnWidth).in(precision));
    }
    Norm finalNorm = !settings.architecture().norms().finalNorm() ? Norm.none()
        : new Norm.Affine(source.take("norm.weight", width), source.take("norm.bias", width));
    float[] positions = new float[0];
    if (settings.positional() == PositionalEncoding.LEARNED) {
      if (!file.contains("positional.weight")) {
        throw new WeightsException("Tensor positional.weight is missing from " + path
            + " (needed by model.positional = learned)");
      }
      long maxPositions = file.info("positional.weight").shape()[0];
      positions = source.take("positional.weight", maxPositions, width);
    }
    return new EncoderWeights(layerWeights, finalNorm, positions, new float[0]);
  }

  private static int countLayers(Checkpoint file, String layerPrefix, String naming) {
    Pattern pattern = Pattern.compile(Pattern.quote(layerPrefix) + "(\\d+)\\..*");
    Set<Integer> indices = new TreeSet<>();
    for (String name : file.names()) {
      Matcher m = pattern.matcher(name);
      if (m.matches()) {
        indices.add(Integer.parseInt(m.group(1)));
      }
    }
    if (indices.isEmpty()) {
      throw new WeightsException("No layer tensors named " + layerPrefix + "<i>.* in "
          + file.path() + " (" + naming + "; tensors found: " + preview(file.names()) + ")");
    }
    int count = indices.size();
    if (!indices.equals(rangeSet(count))) {
      throw new WeightsException("Layer indices in " + file.path() + " are not 0.." + (count - 1)
          + ": " + indices);
    }
    return count;
  }

  private static int lengthOf(Checkpoint file, String name) {
    long[] shape = file.info(name).shape();
    if (shape.length != 1 || shape[0] < 1) {
      throw new WeightsException("Tensor " + name + " has shape " + Arrays.toString(shape)
          + ", expected a non-empty vector: " + file.path());
    }
    return Math.toIntExact(shape[0]);
  }

  private static Set<Integer> rangeSet(int count) {
    Set<Integer> range = new TreeSet<>();
    for (int i = 0; i < count; i++) {
      range.add(i);
    }
    return range;
  }

  private static String preview(List<String> names) {
    List<String> head = names.subList(0, Math.min(5, names.size()));
    return head + (names.size() > head.size()
        ? " and " + (names.size() - head.size()) + " more" : "");
  }

  /** {@code values} of tensor {@code name} in {@code file}, or an error naming a value that is
   *  not finite and where it is. */
  static float[] finite(String name, float[] values, Path file) {
    for (int i = 0; i < values.length; i++) {
      if (!Float.isFinite(values[i])) {
        throw notFinite(name, values[i], i, file);
      }
    }
    return values;
  }

  /** The error for tensor {@code name}'s {@code value} at flat {@code index}, not finite. */
  private static WeightsException notFinite(String name, float value, long index, Path file) {
    return new WeightsException("Tensor " + name + " holds " + value + " at flat index " + index
        + ": " + file);
  }

  /** Hands out tensors with checked shapes and finite values, remembering which were taken. */
  static final class Source implements TensorNaming.TensorSource {
    private final Checkpoint file;
    private final Precision precision;
    private final Set<String> used = Collections.synchronizedSet(new LinkedHashSet<>());
    private final Map<String, Object> shared = new ConcurrentHashMap<>();

    /**
     * {@code precision}: the products' (in bfloat16 and int8, a BF16 table is kept as stored,
     * never widened on the heap).
     */
    Source(Checkpoint file, Precision precision) {
      this.file = file;
      this.precision = precision;
    }

    @Override
    public Matrix table(String name, long rows, long cols) {
      checkShape(name, rows, cols);
      Bfloat16Matrix kept = precision == Precision.FLOAT32
          || file.info(name).dtype() != SafetensorsFile.DType.BF16
          || 2 * rows * cols > Integer.MAX_VALUE ? null
          : Bfloat16Matrix.stored(Math.toIntExact(rows), Math.toIntExact(cols),
              target -> file.readStored(name, target));
      if (kept == null) {
        return TensorNaming.TensorSource.super.table(name, rows, cols);
      }
      long bad = kept.firstNonFinite();
      if (bad >= 0) {
        throw notFinite(name, kept.at(bad), bad, file.path());
      }
      used.add(name);
      return kept;
    }

    @Override
    public float[] take(String name, long... shape) {
      checkShape(name, shape);
      return finite(name, file.read(name));
    }

    /** Row {@code row} of tensor {@code name} of {@code shape}, the rest left unread. */
    float[] takeRow(String name, long row, long... shape) {
      checkShape(name, shape);
      return finite(name, file.readRow(name, row));
    }

    private void checkShape(String name, long... shape) {
      if (!file.contains(name)) {
        file.refuseIfNotFloating(name);
        throw new WeightsException("Tensor " + name + " is missing from " + file.path()
            + " (expected shape " + Arrays.toString(shape) + ")");
      }
      SafetensorsFile.TensorInfo info = file.info(name);
      if (!Arrays.equals(info.shape(), shape)) {
        throw new WeightsException("Tensor " + name + " has shape " + info.shapeString()
            + ", expected " + Arrays.toString(shape) + ": " + file.path());
      }
    }

    private float[] finite(String name, float[] values) {
      used.add(name);
      return WeightsLoader.finite(name, values, file.path());
    }

    @Override
    public long rows(String name) {
      return file.contains(name) ? file.info(name).shape()[0] : -1;
    }

    @Override
    public void ignore(String name) {
      if (file.contains(name)) {
        used.add(name);
      }
    }

    @Override
    public Path path() {
      return file.path();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T shared(String key, Supplier<T> make) {
      return (T) shared.computeIfAbsent(key, k -> make.get());
    }

    void checkAllUsed(ModelSettings settings) {
      List<String> unexpected = new ArrayList<>();
      for (String name : file.names()) {
        if (!used.contains(name)) {
          unexpected.add(name);
        }
      }
      if (!unexpected.isEmpty()) {
        String hint = "";
        if (unexpected.contains("norm.weight") && !settings.architecture().norms().finalNorm()) {
          hint = " (set model.final-norm = true to use norm.*)";
        } else if (unexpected.contains("positional.weight")) {
          hint = " (set model.positional = learned to use positional.weight)";
        }
        throw new WeightsException("Unexpected tensors in " + file.path() + ": "
            + preview(unexpected) + hint);
      }
    }
  }
}
