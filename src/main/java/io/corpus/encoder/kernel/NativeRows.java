package io.corpus.encoder.kernel;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.ShortBuffer;

/**
 * Heap rows for the vector passes over native memory, one set per thread, grown to the widest
 * row asked for; and views of a native buffer in native order. The Vector API of Java 17 to 19
 * loads and stores ByteBuffers, that of Java 20 on MemorySegments instead (JEP 434), so code
 * built for Java 17 and run on both reaches native memory only by copying whole rows between it
 * and arrays: bulk copies (memcpy) of rows that stay in the first-level cache.
 */
final class NativeRows {
  private float[] floats = new float[0];
  private int[] ints = new int[0];
  private short[] shorts = new short[0];
  private byte[] bytes = new byte[0];

  /** A float row of at least {@code width}, its contents undefined. */
  float[] floats(int width) {
    if (floats.length < width) {
      floats = new float[width];
    }
    return floats;
  }

  /** An int row of at least {@code width}, its contents undefined. */
  int[] ints(int width) {
    if (ints.length < width) {
      ints = new int[width];
    }
    return ints;
  }

  /** A short row of at least {@code width}, its contents undefined. */
  short[] shorts(int width) {
    if (shorts.length < width) {
      shorts = new short[width];
    }
    return shorts;
  }

  /** A byte row of at least {@code width}, its contents undefined. */
  byte[] bytes(int width) {
    if (bytes.length < width) {
      bytes = new byte[width];
    }
    return bytes;
  }

  /** The floats of {@code buffer} from its byte 0, in native order whatever its own order. */
  static FloatBuffer floats(ByteBuffer buffer) {
    return inNativeOrder(buffer).asFloatBuffer();
  }

  /** The ints of {@code buffer} from its byte 0, in native order whatever its own order. */
  static IntBuffer ints(ByteBuffer buffer) {
    return inNativeOrder(buffer).asIntBuffer();
  }

  /** The shorts of {@code buffer} from its byte 0, in native order whatever its own order. */
  static ShortBuffer shorts(ByteBuffer buffer) {
    return inNativeOrder(buffer).asShortBuffer();
  }

  private static ByteBuffer inNativeOrder(ByteBuffer buffer) {
    return buffer.duplicate().position(0).order(ByteOrder.nativeOrder());
  }
}
