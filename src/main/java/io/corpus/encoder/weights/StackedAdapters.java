package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * jina-embeddings-v3's task adapters, inside its checkpoint: its {@code XLMRobertaLoRA} registers
 * a LoRA parametrization on every linear and embedding weight, so the checkpoint holds
 * {@code <module>.parametrizations.weight.original} and, stacked one per task of config.json's
 * {@code lora_adaptations}, {@code <module>.parametrizations.weight.0.lora_A} and
 * {@code lora_B}. The task's slice is merged as its {@code LoRAParametrization.lora_forward}
 * adds it, scaled by {@code lora_alpha / lora_rank}: for a linear weight (out, in), with A (r, in)
 * and B (out, r), W + s · B · A; for an embedding table (V, E), whose factors are stored the other
 * way round, A (V, r) and B (r, E), W + s · A · B. A weight the model reads by its plain name is
 * handed out merged.
 */
final class StackedAdapters implements TaskAdapter.Adapted {
  private static final String WEIGHT = ".weight";
  private static final String ORIGINAL = ".parametrizations.weight.original";
  private static final String FACTOR = ".parametrizations.weight.0.lora_";

  private final TensorNaming.TensorSource base;
  private final Checkpoint file;
  private final TaskAdapter adapter;
  private final int tasks;   // lora_adaptations: each factor stacks one per task
  private int merged;

  StackedAdapters(TensorNaming.TensorSource base, Checkpoint file, TaskAdapter adapter) {
    this.base = base;
    this.file = file;
    this.adapter = adapter;
    this.tasks = tasks(adapter.folder()).size();
  }

  /** config.json's {@code lora_adaptations}, in order; empty without them. */
  static List<String> tasks(Path model) {
    JsonNode config = config(model);
    List<String> tasks = new ArrayList<>();
    config.path("lora_adaptations").forEach(t -> tasks.add(t.asText()));
    return tasks;
  }

  /** {@code lora_alpha / lora_rank}, as the parametrization scales its delta. */
  static double scale(Path model) {
    JsonNode config = config(model);
    Path file = model.resolve("config.json");
    return config.path("lora_alpha").asDouble(1) / ModelFamily.positiveInt(config, "lora_rank",
        file);
  }

  private static JsonNode config(Path model) {
    Path file = model.resolve("config.json");
    return Files.isRegularFile(file) ? ModelFolder.json(file)
        : com.fasterxml.jackson.databind.node.MissingNode.getInstance();
  }

  @Override
  public float[] take(String name, long... shape) {
    String stem = parametrized(name);
    if (stem == null) {
      return base.take(name, shape);
    }
    float[] w = base.take(stem + ORIGINAL, shape);
    float[] a = slice(stem + FACTOR + "A");
    float[] b = slice(stem + FACTOR + "B");
    long[] as = factorShape(stem + FACTOR + "A");
    long[] bs = factorShape(stem + FACTOR + "B");
    boolean embedding = stem.endsWith("_embeddings");
    // linear: B (out, r) · A (r, in); embedding: A (V, r) · B (r, E)
    long[] p = embedding ? as : bs;
    long[] q = embedding ? bs : as;
    if (shape.length != 2 || p[0] != shape[0] || q[1] != shape[1] || p[1] != q[0]) {
      throw new WeightsException(file.path() + ": " + stem + " is " + Arrays.toString(shape)
          + " but its task factors are A " + Arrays.toString(as) + " and B "
          + Arrays.toString(bs) + " (expected " + (embedding ? "(V, r) and (r, E)"
              : "(r, in) and (out, r)") + " for each task)");
    }
    TaskAdapter.addScaled(w, TaskAdapter.product(embedding ? a : b, Math.toIntExact(p[0]),
        Math.toIntExact(p[1]), embedding ? b : a, Math.toIntExact(q[1])), adapter.scale());
    merged++;
    return w;
  }

  /** The module of a weight stored as a parametrization, or null for a plain one. */
  private String parametrized(String name) {
    if (!name.endsWith(WEIGHT) || base.rows(name) >= 0) {
      return null;
    }
    String stem = name.substring(0, name.length() - WEIGHT.length());
    return base.rows(stem + ORIGINAL) >= 0 ? stem : null;
  }

  /** A factor's shape without its leading task dimension, checked against the tasks. */
  private long[] factorShape(String name) {
    if (!file.contains(name)) {
      throw new WeightsException("Tensor " + name + " is missing from " + file.path()
          + " (the task factors of a parametrized weight)");
    }
    long[] shape = file.info(name).shape();
    if (shape.length != 3 || shape[0] != tasks) {
      throw new WeightsException(file.path() + ": " + name + " has shape "
          + Arrays.toString(shape) + ", expected one (·, ·) factor for each of the " + tasks
          + " lora_adaptations");
    }
    return Arrays.copyOfRange(shape, 1, 3);
  }

  /** The task's slice of a stacked factor. */
  private float[] slice(String name) {
    long[] shape = file.info(name).shape();
    float[] all = base.take(name, shape);
    int size = Math.toIntExact(shape[1] * shape[2]);
    return Arrays.copyOfRange(all, adapter.stacked() * size, (adapter.stacked() + 1) * size);
  }

  @Override
  public long rows(String name) {
    String stem = parametrized(name);
    return stem == null ? base.rows(name) : base.rows(stem + ORIGINAL);
  }

  @Override
  public void ignore(String name) {
    String stem = parametrized(name);
    if (stem == null) {
      base.ignore(name);
      return;
    }
    for (String part : List.of(ORIGINAL, FACTOR + "A", FACTOR + "B")) {
      base.ignore(stem + part);
    }
  }

  @Override
  public TensorNaming.TensorSource base() {
    return base;
  }

  @Override
  public void checkAllMerged() {
    if (merged == 0) {
      throw new WeightsException(file.path() + " (model.task = " + adapter.task() + "): no "
          + "weight is stored as a parametrization with task factors, which config.json's "
          + "lora_adaptations promise");
    }
  }
}
