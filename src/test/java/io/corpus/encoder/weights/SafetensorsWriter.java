package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes F32 or F16 tensors in the safetensors layout (sorted names, header padded to 8 bytes).
 */
public final class SafetensorsWriter {
  private final Map<String, float[]> values = new TreeMap<>();
  private final Map<String, long[]> shapes = new TreeMap<>();
  private final Map<String, Boolean> half = new TreeMap<>();

  /** Adds a tensor stored as F16 (each value rounded to the nearest half, ties to even). */
  public SafetensorsWriter putHalf(String name, float[] data, long... shape) {
    put(name, data, shape);
    half.put(name, true);
    return this;
  }

  /** Adds a tensor; {@code shape}'s product must equal the number of values. */
  public SafetensorsWriter put(String name, float[] data, long... shape) {
    long count = 1;
    for (long d : shape) {
      count *= d;
    }
    if (count != data.length) {
      throw new IllegalArgumentException("Tensor " + name + " has " + data.length
          + " values, shape needs " + count);
    }
    values.put(name, data);
    shapes.put(name, shape.clone());
    half.put(name, false);
    return this;
  }

  public void write(Path path) throws IOException {
    ObjectMapper json = new ObjectMapper();
    ObjectNode header = json.createObjectNode();
    long offset = 0;
    for (Map.Entry<String, float[]> e : values.entrySet()) {
      ObjectNode entry = header.putObject(e.getKey());
      boolean f16 = half.get(e.getKey());
      entry.put("dtype", f16 ? "F16" : "F32");
      entry.putPOJO("shape", shapes.get(e.getKey()));
      long end = offset + (f16 ? 2L : 4L) * e.getValue().length;
      entry.putArray("data_offsets").add(offset).add(end);
      offset = end;
    }
    byte[] headerBytes = json.writeValueAsString(header).getBytes(StandardCharsets.UTF_8);
    int padded = (headerBytes.length + 7) / 8 * 8;
    try (OutputStream out = Files.newOutputStream(path)) {
      ByteBuffer prefix = ByteBuffer.allocate(8 + padded).order(ByteOrder.LITTLE_ENDIAN);
      prefix.putLong(padded).put(headerBytes);
      while (prefix.hasRemaining()) {
        prefix.put((byte) ' ');
      }
      out.write(prefix.array());
      for (Map.Entry<String, float[]> e : values.entrySet()) {
        float[] data = e.getValue();
        boolean f16 = half.get(e.getKey());
        ByteBuffer buffer = ByteBuffer.allocate((f16 ? 2 : 4) * data.length)
            .order(ByteOrder.LITTLE_ENDIAN);
        if (f16) {
          for (float v : data) {
            buffer.putShort(HalfFloats.floatToHalf(v));
          }
        } else {
          buffer.asFloatBuffer().put(data);
        }
        out.write(buffer.array());
      }
    }
  }
}
