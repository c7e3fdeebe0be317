package io.corpus.encoder.weights;

import io.corpus.encoder.kernel.Precision;
import java.util.HashMap;
import java.util.Map;

/**
 * What a folder's weights take, from its checkpoint's headers before a tensor is read: the heap
 * a load needs in each precision, the parameters and bytes {@code --check} prints, and the
 * one-line refusal of weights that would not fit the heap.
 */
public final class WeightsMemory {
  private WeightsMemory() {}

  /**
   * The bytes of heap the checkpoint's kept tensors take once read as the job holds them: the
   * encoder layers' ({@code layerPrefix}) in float32, or in bfloat16 and int8 one layer in
   * float32 while it is converted (the converted layers are held in native memory, beside the
   * heap), and every other tensor (embeddings, norms, heads) in float32, but lm_head, of which a
   * reranker reads two rows.
   */
  static long heapBytes(Checkpoint file, String layerPrefix, Precision precision) {
    Tally t = Tally.of(file, layerPrefix);
    return 4 * (t.others() + (precision == Precision.FLOAT32
        ? t.layerMatrices() + t.layerVectors() : t.largestLayer()));
  }

  /**
   * The values of a checkpoint's kept tensors by their headers, lm_head left out (a reranker
   * reads two of its rows, not the table): the encoder layers' matrices and other tensors, the
   * largest layer's, and every tensor outside the layers.
   */
  private record Tally(long layerMatrices, long layerVectors, long largestLayer, long others) {
    static Tally of(Checkpoint file, String layerPrefix) {
      long matrices = 0;
      long vectors = 0;
      long others = 0;
      Map<String, Long> perLayer = new HashMap<>();
      for (String name : file.names()) {
        if (name.equals(WeightsLoader.LM_HEAD)) {
          continue;
        }
        SafetensorsFile.TensorInfo info = file.info(name);
        long n = info.elementCount();
        if (!name.startsWith(layerPrefix)) {
          others += n;
          continue;
        }
        if (info.shape().length == 2) {
          matrices += n;
        } else {
          vectors += n;
        }
        String rest = name.substring(layerPrefix.length());
        perLayer.merge(rest.substring(0, Math.max(0, rest.indexOf('.'))), n, Long::sum);
      }
      return new Tally(matrices, vectors,
          perLayer.values().stream().mapToLong(Long::longValue).max().orElse(0), others);
    }
  }

  /**
   * What a folder's weights take by their checkpoint's headers alone, no tensor read: the
   * parameters the encoder and its heads keep (a causal language model's {@code lm_head} left
   * out), and their bytes as each precision holds them (the layers' matrices in 4, 2 or 1 bytes,
   * every other tensor in float32).
   *
   * @param parameters the values the kept tensors hold
   * @param bytes per precision, in {@link Precision} order
   */
  public record HeaderEstimate(long parameters, long[] bytes) {
    /** "7,504,924,672 parameters: 30.0 GB in float32, 16.1 GB in bfloat16, 9.1 GB in int8". */
    @Override
    public String toString() {
      StringBuilder s = new StringBuilder(String.format(java.util.Locale.ROOT,
          "%,d parameters:", parameters));
      Precision[] all = Precision.values();
      for (int i = 0; i < all.length; i++) {
        s.append(i == 0 ? " " : ", ").append(String.format(java.util.Locale.ROOT,
            "%,.1f GB in %s", bytes[i] / 1e9, all[i].configName()));
      }
      return s.toString();
    }
  }

  /**
   * The parameters of a checkpoint's kept tensors by their headers, as the Hub counts a model's
   * size: every value stored, each tensor once ({@code lm_head} left out: a reranker reads two
   * of its rows). Zeros the model holds for a bias or a shift its architecture lacks are no
   * parameters, nor is a table worked out from another.
   */
  static long parameters(Checkpoint file, String layerPrefix) {
    Tally t = Tally.of(file, layerPrefix);
    return t.layerMatrices() + t.layerVectors() + t.others();
  }

  /** The parameters of every tensor of a weights file ({@code model.weights}), by its header. */
  public static long parameters(java.nio.file.Path weightsFile) {
    return parameters(Checkpoint.of(weightsFile), "");
  }

  /** The folder's {@link HeaderEstimate}, from the headers of its checkpoint files. */
  public static HeaderEstimate headerEstimate(ModelFolder model) {
    ModelFamily family = model.family();
    Checkpoint file = Checkpoint.of(model, family.keptPrefixes(model.classifier().isPresent()));
    Tally t = Tally.of(file, family.names().layerPrefix());
    long matrices = t.layerMatrices();
    long others = t.others() + t.layerVectors();
    Precision[] all = Precision.values();
    long[] bytes = new long[all.length];
    for (int i = 0; i < all.length; i++) {
      bytes[i] = 4 * others + matrices * switch (all[i]) {
        case FLOAT32 -> 4;
        case BFLOAT16 -> 2;
        case INT8 -> 1;
      };
    }
    return new HeaderEstimate(matrices + others, bytes);
  }

  /**
   * Refuses, before a tensor is read, weights that would not fit {@code available} bytes of
   * heap: one line with their size, the heap, and what to change, rather than an
   * OutOfMemoryError half-way through reading them.
   */
  static void refuseIfTooLarge(long needed, long available, ModelFolder model,
      Precision precision) {
    if (needed <= available) {
      return;
    }
    throw new WeightsException(String.format(java.util.Locale.ROOT, "%s: the weights take "
        + "%,.1f GB of heap as this job holds them (model.precision = %s), more than the %,.1f "
        + "GB heap of this JVM. Give the driver more memory (jobs/encode: ENCODER_HEAP=%dg; "
        + "spark-submit: --driver-memory, and as much for each executor, which holds the "
        + "broadcast weights too)%s", model.folder(), needed / 1e9, precision.configName(),
        available / 1e9, (long) Math.ceil(needed * 1.25 / (1L << 30)) + 1,
        precision == Precision.FLOAT32 && model.shape().layers() > 0
            ? ", or set model.precision = bfloat16 (processors with "
            + "bfloat16 instructions) or int8, which hold the layers in 2 and 1 bytes a weight, "
            + "outside the heap" : ""));
  }
}
