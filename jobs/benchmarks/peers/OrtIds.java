import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.Writer;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The ONNX Runtime Java peer on token ids, for the benchmarks whose model has no ready ONNX export
 * (jobs/benchmarks/bench-qwen3; the export: jobs/benchmarks/peers/onnx_export_qwen3.py, its int8
 * form: onnx_quantize.py): the ids as the PyTorch port reads them (a JSON list of
 * {"input_ids": [...]}, no tokenization timed), batched as sentence-transformers batches (sorted
 * by length, longest first, batches of 32 padded on the right with an attention mask), intra-op
 * threads = cores, every graph optimization on; each text pooled (the last real token's hidden
 * state, or the mean over its tokens) and L2-normalized, or, {@code sparse}, the model's own
 * (batch, V) output taken as it is (SPLADE: jobs/benchmarks/peers/onnx_export_splade.py). Run with the ONNX Runtime peer's class
 * path (../shared/tools/ort-text: ONNX Runtime and Gson), as a single-file source launch.
 *
 * <p>Usage: java -cp CLASSPATH OrtIds.java MODEL.onnx IDS.json last|mean|sparse [OUT.json] [BATCH]
 * IDS.json: [{"id": ..., "input_ids": [...]}, ...] (jobs/samples/tokenize_ids.js), or a line of
 * {"ids": [...]} per text (jobs/samples/make-long-documents; ids 0, 1, ... by line); OUT.json:
 * [{"id", "sentence_embedding"}], as the text peer writes (bench.PrecisionAccuracy reads both),
 * or for {@code sparse} [{"id", "sparse_indices", "sparse_values"}] (the nonzero terms).
 */
public final class OrtIds {
  public static void main(String[] args) throws Exception {
    long start = System.nanoTime();
    String model = args[0];
    List<String> names = new ArrayList<>();
    List<long[]> rows = new ArrayList<>();
    for (JsonObject row : rows(Files.readString(Path.of(args[1])))) {
      names.add(row.has("id") ? row.get("id").getAsString() : String.valueOf(names.size()));
      long[] ids = new Gson().fromJson(row.has("input_ids") ? row.get("input_ids")
          : row.get("ids"), long[].class);
      if (ids == null || ids.length == 0) {
        throw new IllegalArgumentException("text " + names.get(names.size() - 1) + " has no ids");
      }
      rows.add(ids);
    }
    String pooling = args[2];
    if (!List.of("last", "mean", "sparse").contains(pooling)) {
      throw new IllegalArgumentException("pooling is last, mean or sparse, not " + pooling);
    }
    String out = args.length > 3 ? args[3] : null;
    int batch = args.length > 4 ? Integer.parseInt(args[4]) : 32;
    int threads = Runtime.getRuntime().availableProcessors();
    OrtEnvironment env = OrtEnvironment.getEnvironment();
    OrtSession.SessionOptions options = new OrtSession.SessionOptions();
    options.setIntraOpNumThreads(threads);
    options.setInterOpNumThreads(1);
    options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
    options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < rows.size(); i++) {
      order.add(i);
    }
    order.sort(Comparator.comparingInt((Integer i) -> -rows.get(i).length));
    float[][] vectors = new float[rows.size()][];
    long tokens = 0;
    long t0 = System.nanoTime();
    try (OrtSession session = env.createSession(model, options)) {
      long t1 = System.nanoTime();
      for (int first = 0; first < order.size(); first += batch) {
        List<Integer> members = order.subList(first, Math.min(order.size(), first + batch));
        int b = members.size();
        int t = rows.get(members.get(0)).length;
        long[] ids = new long[b * t];
        long[] mask = new long[b * t];
        for (int r = 0; r < b; r++) {
          long[] row = rows.get(members.get(r));
          System.arraycopy(row, 0, ids, r * t, row.length);
          for (int j = 0; j < row.length; j++) {
            mask[r * t + j] = 1;
          }
          tokens += row.length;
        }
        long[] shape = {b, t};
        try (OnnxTensor idsTensor = OnnxTensor.createTensor(env, LongBuffer.wrap(ids), shape);
            OnnxTensor maskTensor = OnnxTensor.createTensor(env, LongBuffer.wrap(mask), shape);
            OrtSession.Result result = session.run(
                Map.of("input_ids", idsTensor, "attention_mask", maskTensor))) {
          Object output = result.get(0).getValue();
          for (int r = 0; r < b; r++) {
            int length = rows.get(members.get(r)).length;
            vectors[members.get(r)] = switch (pooling) {
              case "sparse" -> ((float[][]) output)[r];     // the model pools: (batch, V)
              case "last" -> normalized(((float[][][]) output)[r][length - 1]);
              default -> normalized(mean(((float[][][]) output)[r], length));
            };
          }
        }
      }
      long t2 = System.nanoTime();
      System.out.printf("onnx runtime %s: %d texts, %d tokens, batches of %d, %d threads: session"
          + " %.1f s, forward %.1f s (%,.0f tokens/s), whole process %.1f s%n", env.getVersion(),
          rows.size(), tokens, batch, threads, (t1 - t0) / 1e9, (t2 - t1) / 1e9,
          tokens / ((t2 - t1) / 1e9), (t2 - start) / 1e9);
    }
    if (out != null) {
      JsonArray written = new JsonArray();
      for (int i = 0; i < vectors.length; i++) {
        JsonObject row = new JsonObject();
        row.addProperty("id", names.get(i));
        if (pooling.equals("sparse")) {
          JsonArray indices = new JsonArray();
          JsonArray values = new JsonArray();
          for (int j = 0; j < vectors[i].length; j++) {
            if (vectors[i][j] != 0) {
              indices.add(j);
              values.add(vectors[i][j]);
            }
          }
          row.add("sparse_indices", indices);
          row.add("sparse_values", values);
        } else {
          row.add("sentence_embedding", new Gson().toJsonTree(vectors[i]));
        }
        written.add(row);
      }
      try (Writer w = Files.newBufferedWriter(Path.of(out))) {
        new Gson().toJson(written, w);
      }
    }
  }

  /** The texts' objects: a JSON list, or one object a line. */
  static List<JsonObject> rows(String text) {
    List<JsonObject> rows = new ArrayList<>();
    if (text.strip().startsWith("[")) {
      for (JsonElement element : new Gson().fromJson(text, JsonArray.class)) {
        rows.add(element.getAsJsonObject());
      }
    } else {
      for (String line : text.split("\n")) {
        if (!line.isBlank()) {
          rows.add(new Gson().fromJson(line, JsonObject.class));
        }
      }
    }
    return rows;
  }

  static float[] mean(float[][] hidden, int length) {
    float[] sum = new float[hidden[0].length];
    for (int j = 0; j < length; j++) {
      for (int c = 0; c < sum.length; c++) {
        sum[c] += hidden[j][c];
      }
    }
    for (int c = 0; c < sum.length; c++) {
      sum[c] /= length;
    }
    return sum;
  }

  static float[] normalized(float[] v) {
    double norm = 0;
    for (float x : v) {
      norm += (double) x * x;
    }
    float scale = (float) (1 / Math.max(Math.sqrt(norm), 1e-12));
    float[] out = new float[v.length];
    for (int c = 0; c < v.length; c++) {
      out[c] = v[c] * scale;
    }
    return out;
  }
}
