package io.corpus.encoder.weights;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tensors of a checkpoint, one safetensors file or several shards, under the names the
 * loader asks for: a model prefix (the {@code bert.} of {@code BertFor…} checkpoints) removed,
 * and tensors outside the kept parts (pooler, task heads such as {@code cls.*} or
 * {@code classifier.*}) or not weights at all (integer buffers such as {@code position_ids}) left
 * out and listed.
 */
final class Checkpoint {
  private final Path path;
  private final Map<String, SafetensorsFile> fileOf = new LinkedHashMap<>();
  private final Map<String, String> storedName = new LinkedHashMap<>();
  private final List<String> leftOut = new ArrayList<>();
  // tensors left out as buffers (not floating point), by their name without the prefix
  private final Map<String, SafetensorsFile.DType> notFloating = new LinkedHashMap<>();

  private Checkpoint(Path path) {
    this.path = path;
  }

  /** Every tensor of one file, under its own name. */
  static Checkpoint of(Path file) {
    Checkpoint checkpoint = new Checkpoint(file);
    SafetensorsFile opened = SafetensorsFile.open(file);
    for (String name : opened.names()) {
      checkpoint.add(name, name, opened);
    }
    return checkpoint;
  }

  /**
   * The tensors of the folder's weight files (a whole checkpoint or its shards) whose name,
   * without its family's task prefix, starts with one of {@code keptParts}; the others are left
   * out.
   */
  static Checkpoint of(ModelFolder model, List<String> keptParts) {
    String prefix = model.family().names().taskPrefix();
    Checkpoint checkpoint = new Checkpoint(model.folder());
    for (Path file : model.weightFiles()) {
      SafetensorsFile opened = SafetensorsFile.open(file);
      for (String stored : opened.names()) {
        String name = stored.startsWith(prefix) ? stored.substring(prefix.length()) : stored;
        boolean weight = opened.info(stored).dtype().floating();   // not a buffer of ids
        if (weight && keptParts.stream().anyMatch(name::startsWith)) {
          if (checkpoint.fileOf.containsKey(name)) {
            throw new WeightsException("Tensor " + name + " is in " + checkpoint.fileOf.get(name)
                .path() + " and again in " + file);
          }
          checkpoint.add(name, stored, opened);
        } else {
          checkpoint.leftOut.add(stored);
          if (!weight) {
            checkpoint.notFloating.put(name, opened.info(stored).dtype());
          }
        }
      }
    }
    return checkpoint;
  }

  private void add(String name, String stored, SafetensorsFile file) {
    fileOf.put(name, file);
    storedName.put(name, stored);
  }

  /** The file, or the folder of the shards. */
  Path path() {
    return path;
  }

  List<String> names() {
    return List.copyOf(fileOf.keySet());
  }

  /** Tensors in the files that are not part of the model here (pooler, task heads, buffers). */
  List<String> leftOut() {
    return List.copyOf(leftOut);
  }

  boolean contains(String name) {
    return fileOf.containsKey(name);
  }

  SafetensorsFile.TensorInfo info(String name) {
    SafetensorsFile file = fileOf.get(name);
    if (file == null) {
      refuseIfNotFloating(name);
      throw new WeightsException("Tensor " + name + " is missing from " + path);
    }
    return file.info(storedName.get(name));
  }

  /**
   * Refuses, naming its type, a tensor of {@code name} the checkpoint holds as integers (left out
   * as a buffer): a weight stored so is not missing but unusable.
   */
  void refuseIfNotFloating(String name) {
    if (notFloating.containsKey(name)) {
      throw new WeightsException("Tensor " + name + " in " + path + " is "
          + notFloating.get(name) + ", not floating point: a weight is F32, F16, BF16 or F64");
    }
  }

  float[] read(String name) {
    info(name);
    return fileOf.get(name).read(storedName.get(name));
  }

  /** A tensor's stored bytes into {@code target} ({@link SafetensorsFile#readStored}). */
  void readStored(String name, java.nio.ByteBuffer target) {
    info(name);
    fileOf.get(name).readStored(storedName.get(name), target);
  }

  /** Row {@code row} of a (rows, cols) tensor. */
  float[] readRow(String name, long row) {
    long cols = info(name).shape()[1];
    return fileOf.get(name).read(storedName.get(name), row * cols, Math.toIntExact(cols));
  }
}
