package io.corpus.encoder.io;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.common.JsonProblem;
import io.corpus.encoder.common.Sha256;
import io.corpus.encoder.model.Quantization;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Per-dimension quantization ranges as files hold them: {@code [[min, ...], [max, ...]]}, alone
 * or as a run summary's {@code outputs.quantize_ranges}. Read through Hadoop's file systems, so
 * an earlier run's summary on a cluster's storage reads as a local one.
 */
public final class QuantizeRanges {
  private static final ObjectMapper JSON = new ObjectMapper();

  private QuantizeRanges() {}

  /** The ranges {@code path} holds; errors name the file and what it holds instead. */
  public static Quantization.Ranges read(String path, Configuration hadoop) {
    Path file = new Path(path);
    JsonNode json;
    try (InputStream in = file.getFileSystem(hadoop).open(file)) {
      json = JSON.readTree(in);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("output.quantize-ranges " + path + " is "
          + JsonProblem.of(e));
    } catch (IOException e) {
      throw new IllegalArgumentException("output.quantize-ranges " + path + " cannot be read: "
          + e.getMessage().lines().findFirst().orElse(""));
    }
    JsonNode ranges = json.isArray() ? json : json.has("quantize_ranges")
        ? json.get("quantize_ranges") : json.path("outputs").path("quantize_ranges");
    if (!ranges.isArray() || ranges.size() != 2 || !ranges.get(0).isArray()
        || ranges.get(0).size() != ranges.get(1).size()) {
      throw new IllegalArgumentException("output.quantize-ranges " + path + " holds no "
          + "[[min, ...], [max, ...]] of equal lengths (alone, or as a run summary's "
          + "outputs.quantize_ranges)");
    }
    try {
      return new Quantization.Ranges(floats(ranges.get(0), path), floats(ranges.get(1), path));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("output.quantize-ranges " + path + ": "
          + e.getMessage());
    }
  }

  private static float[] floats(JsonNode values, String path) {
    float[] out = new float[values.size()];
    for (int i = 0; i < out.length; i++) {
      if (!values.get(i).isNumber()) {
        throw new IllegalArgumentException("output.quantize-ranges " + path + " holds "
            + values.get(i) + " where a number goes");
      }
      out[i] = (float) values.get(i).asDouble();
    }
    return out;
  }

  /** The SHA-256 of the ranges' float bits, minimums then maximums: what a reuse key holds. */
  public static String digest(Quantization.Ranges ranges) {
    java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(8 * ranges.width());
    bytes.asFloatBuffer().put(ranges.min()).put(ranges.max());
    return Sha256.hex(bytes.array());
  }

  /** As a run summary writes them: [[min, ...], [max, ...]], each float as it is. */
  public static List<List<Float>> described(Quantization.Ranges ranges) {
    List<List<Float>> out = new ArrayList<>();
    for (float[] row : new float[][] {ranges.min(), ranges.max()}) {
      List<Float> values = new ArrayList<>(row.length);
      for (float v : row) {
        values.add(v);
      }
      out.add(values);
    }
    return out;
  }
}
