package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.kernel.Matrix;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.function.Supplier;

/**
 * One task's LoRA adapter of a folder that carries one per task ({@code model.task}): a PEFT
 * adapter folder under {@code adapters/<task>/} ({@code adapter_config.json}: {@code r},
 * {@code lora_alpha}, {@code target_modules}; {@code adapter_model.safetensors}:
 * {@code base_model.model.<module>.lora_A.weight} (r, in) and {@code lora_B.weight} (out, r)),
 * merged into the weights once, as they are read: W + (α / r) · B · A (B · A on the BLAS; α / √r under
 * {@code use_rslora}), the merge PEFT's {@code merge_and_unload} and vLLM make. The merged weights
 * are then reduced to the job's precision like any other, so a task costs nothing per token.
 *
 * <p>jina-embeddings-v3 keeps its adapters inside its checkpoint instead: every linear and
 * embedding weight stored as a parametrization, its factors stacked one per task of config.json's
 * {@code lora_adaptations} ({@link StackedAdapters}), scaled by {@code lora_alpha / lora_rank}.
 *
 * @param task the task's name, its folder's
 * @param folder {@code adapters/<task>}; the model folder for adapters inside the checkpoint
 * @param scale α / r (or α / √r)
 * @param stacked the task's place among the adapters stacked inside the checkpoint; -1 for a
 *     PEFT adapter folder
 */
public record TaskAdapter(String task, Path folder, double scale, int stacked) {
  /**
   * A tensor source with a task's deltas added to the weights it hands out; refuses, once every
   * weight is read, an adapter that did not land where it should.
   */
  interface Adapted extends TensorNaming.TensorSource {
    /** The source the adapted weights are read from. */
    TensorNaming.TensorSource base();

    /** Refuses an adapter that merged nothing it promised. */
    void checkAllMerged();

    @Override
    default <T> T shared(String key, Supplier<T> make) {
      return base().shared(key, make);
    }

    @Override
    default Path path() {
      return base().path();
    }
  }

  /** Where a folder keeps its tasks' adapters. */
  static final String ADAPTERS = "adapters";
  private static final String CONFIG = "adapter_config.json";
  private static final String WEIGHTS = "adapter_model.safetensors";
  private static final String PREFIX = "base_model.model.";

  /**
   * The tasks a model folder carries adapters for: the folders of {@code adapters/}, or
   * config.json's {@code lora_adaptations} (in their order).
   */
  public static Set<String> tasks(Path model) {
    return tasks(model, StackedAdapters.tasks(model));
  }

  /** As {@link #tasks(Path)}, the folder's stacked tasks already read. */
  private static Set<String> tasks(Path model, List<String> stacked) {
    if (!stacked.isEmpty()) {
      return new LinkedHashSet<>(stacked);
    }
    Path adapters = model.resolve(ADAPTERS);
    Set<String> tasks = new TreeSet<>();
    if (!Files.isDirectory(adapters)) {
      return tasks;
    }
    try (Stream<Path> folders = Files.list(adapters)) {
      folders.filter(f -> Files.isRegularFile(f.resolve(CONFIG)))
          .forEach(f -> tasks.add(f.getFileName().toString()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return tasks;
  }

  /**
   * The adapter of {@code task} in {@code model}'s folder; refused in one line, naming the
   * folder's tasks, when there is no such task, when the folder has tasks and none is named, and
   * when its config asks for what is not merged here (DoRA, biases, fan-in-fan-out weights,
   * modules saved whole).
   */
  static TaskAdapter read(Path model, String task) {
    List<String> stacked = StackedAdapters.tasks(model);
    Set<String> tasks = tasks(model, stacked);
    if (task.isEmpty()) {
      if (!tasks.isEmpty()) {
        throw new WeightsException(model + " carries an adapter per task; set model.task to "
            + "one of " + tasks);
      }
      return null;
    }
    if (!tasks.contains(task)) {
      throw new WeightsException("model.task = " + task + " is not a task of " + model
          + (tasks.isEmpty() ? " (it has no adapters/ folder of PEFT adapters)"
              : "; its tasks: " + tasks));
    }
    if (!stacked.isEmpty()) {
      return new TaskAdapter(task, model, StackedAdapters.scale(model), stacked.indexOf(task));
    }
    Path folder = model.resolve(ADAPTERS).resolve(task);
    Path file = folder.resolve(CONFIG);
    JsonNode config;
    try {
      config = new ObjectMapper().readTree(file.toFile());
    } catch (IOException e) {
      throw new WeightsException(file + " is not JSON: " + e.getMessage());
    }
    if (!config.path("peft_type").asText("LORA").equals("LORA")) {
      throw new WeightsException(file + ": peft_type " + config.get("peft_type") + " is not "
          + "supported (LORA)");
    }
    for (String key : List.of("use_dora", "fan_in_fan_out")) {
      if (config.path(key).asBoolean(false)) {
        throw new WeightsException(file + ": " + key + " = true is not supported (false)");
      }
    }
    if (!config.path("bias").asText("none").equals("none")
        || !config.path("modules_to_save").isMissingNode()
            && !config.path("modules_to_save").isNull()) {
      throw new WeightsException(file + ": bias " + config.get("bias") + " and modules_to_save "
          + config.get("modules_to_save") + " are not supported (none and null)");
    }
    int rank = ModelFamily.positiveInt(config, "r", file);
    double alpha = config.path("lora_alpha").asDouble(8);   // PEFT's LoraConfig default
    double scale = config.path("use_rslora").asBoolean(false) ? alpha / Math.sqrt(rank)
        : alpha / rank;
    if (!Files.isRegularFile(folder.resolve(WEIGHTS))) {
      throw new WeightsException(folder + " has no " + WEIGHTS);
    }
    return new TaskAdapter(task, folder, scale, -1);
  }

  /**
   * {@code base} with this adapter's deltas added to the weights they name; {@code taskPrefix}
   * is taken off the module paths too (an adapter made on a task model, {@code model.layers…}).
   * Every delta must land on a weight the model reads: {@link Merging#checkAllMerged}.
   */
  Adapted merging(TensorNaming.TensorSource base, Checkpoint model, String taskPrefix) {
    if (stacked >= 0) {
      return new StackedAdapters(base, model, this);
    }
    Checkpoint file = Checkpoint.of(folder.resolve(WEIGHTS));
    Map<String, String[]> factors = new HashMap<>();   // weight name -> (A, B) tensor names
    for (String name : file.names()) {
      String module = name.startsWith(PREFIX) ? name.substring(PREFIX.length()) : name;
      if (!taskPrefix.isEmpty() && module.startsWith(taskPrefix)) {
        module = module.substring(taskPrefix.length());
      }
      int at = Math.max(module.lastIndexOf(".lora_A."), module.lastIndexOf(".lora_B."));
      if (at < 0) {
        throw new WeightsException(file.path() + ": " + name + " is not a LoRA factor "
            + "(…lora_A.weight, …lora_B.weight)");
      }
      String[] pair = factors.computeIfAbsent(module.substring(0, at) + ".weight",
          k -> new String[2]);
      pair[module.charAt(at + 6) == 'A' ? 0 : 1] = name;
    }
    for (Map.Entry<String, String[]> f : factors.entrySet()) {
      if (f.getValue()[0] == null || f.getValue()[1] == null) {
        throw new WeightsException(file.path() + ": " + f.getKey() + " has only one of its "
            + "lora_A and lora_B factors");
      }
    }
    return new Merging(base, file, factors);
  }

  /** A tensor source that adds the adapter's deltas to the weights it reads. */
  final class Merging implements Adapted {
    private final TensorNaming.TensorSource base;
    private final Checkpoint file;
    private final Map<String, String[]> factors;
    private final Set<String> merged = new LinkedHashSet<>();

    private Merging(TensorNaming.TensorSource base, Checkpoint file,
        Map<String, String[]> factors) {
      this.base = base;
      this.file = file;
      this.factors = factors;
    }

    @Override
    public float[] take(String name, long... shape) {
      float[] w = base.take(name, shape);
      String[] pair = factors.get(name);
      if (pair != null) {
        addDelta(name, w, shape);
      }
      return w;
    }

    @Override
    public Matrix table(String name, long rows, long cols) {
      if (!factors.containsKey(name)) {
        return base.table(name, rows, cols);
      }
      return Matrix.of(take(name, rows, cols), Math.toIntExact(rows), Math.toIntExact(cols));
    }

    /** w (out, in) += scale · B (out, r) · A (r, in), the product on the BLAS. */
    private void addDelta(String name, float[] w, long[] shape) {
      String[] pair = factors.get(name);
      long[] a = file.info(pair[0]).shape();
      long[] b = file.info(pair[1]).shape();
      if (shape.length != 2 || a.length != 2 || b.length != 2 || a[1] != shape[1]
          || b[0] != shape[0] || a[0] != b[1]) {
        throw new WeightsException(file.path() + ": " + name + " is " + java.util.Arrays
            .toString(shape) + " but its factors are A " + java.util.Arrays.toString(a)
            + " and B " + java.util.Arrays.toString(b) + " (expected (r, in) and (out, r))");
      }
      addScaled(w, product(file.read(pair[1]), Math.toIntExact(shape[0]),
          Math.toIntExact(a[0]), file.read(pair[0]), Math.toIntExact(shape[1])), scale);
      merged.add(name);
    }

    @Override
    public long rows(String name) {
      return base.rows(name);
    }

    @Override
    public void ignore(String name) {
      base.ignore(name);
    }

    @Override
    public TensorNaming.TensorSource base() {
      return base;
    }

    /** Refuses an adapter whose factors name a weight the model did not read. */
    @Override
    public void checkAllMerged() {
      List<String> left = new ArrayList<>(factors.keySet());
      left.removeAll(merged);
      if (!left.isEmpty()) {
        throw new WeightsException(folder + " (model.task = " + task + ") adapts "
            + new TreeSet<>(left) + ", which this model does not read as a weight");
      }
    }
  }

  /** P (m, k) · Q (k, n), on the BLAS. */
  static float[] product(float[] p, int m, int k, float[] q, int n) {
    float[] transposed = new float[n * k];                // Qᵀ (n, k): P · (Qᵀ)ᵀ = P · Q
    for (int r = 0; r < k; r++) {
      for (int c = 0; c < n; c++) {
        transposed[c * k + r] = q[r * n + c];
      }
    }
    float[] out = new float[m * n];
    Matrix.of(transposed, n, k).multiply(m, p, 0, out, 0, false);
    return out;
  }

  /** w += scale · delta. */
  static void addScaled(float[] w, float[] delta, double scale) {
    for (int v = 0; v < delta.length; v++) {
      w[v] += (float) scale * delta[v];
    }
  }
}
