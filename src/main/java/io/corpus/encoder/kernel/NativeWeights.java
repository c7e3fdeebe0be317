package io.corpus.encoder.kernel;

import com.sun.jna.Memory;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * A oneDNN matrix's values, held once, in native memory, where oneDNN reads them: not
 * on the heap as well (a bfloat16 Qwen3-0.6B's layers are 0.88 GB). Serialized as their bytes, in
 * pieces, and put back into native memory where they are read (an executor's copy of a
 * broadcast). Freed with the object (JNA's {@link Memory} cleaner).
 */
final class NativeWeights implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final int PIECE = 1 << 20;
  private final long bytes;
  private transient Memory memory;

  private NativeWeights(long bytes) {
    if (bytes < 1) {
      throw new IllegalArgumentException("A matrix holds at least one value");
    }
    this.bytes = bytes;
    this.memory = new Memory(bytes);
  }

  static NativeWeights of(byte[] values) {
    NativeWeights w = new NativeWeights(values.length);
    w.memory.write(0, values, 0, values.length);
    return w;
  }

  static NativeWeights of(short[] values) {
    NativeWeights w = new NativeWeights(2L * values.length);
    w.memory.write(0, values, 0, values.length);
    return w;
  }

  static NativeWeights of(float[] values) {
    NativeWeights w = new NativeWeights(4L * values.length);
    w.memory.write(0, values, 0, values.length);
    return w;
  }

  /**
   * {@code bytes} bytes that {@code fill} writes into the native memory it is given as one
   * buffer (at most 2 GB), from its position to its limit.
   */
  static NativeWeights filled(long bytes, Consumer<ByteBuffer> fill) {
    if (bytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(bytes + " bytes in one buffer");
    }
    NativeWeights w = new NativeWeights(bytes);
    fill.accept(w.memory.getByteBuffer(0, bytes));
    return w;
  }

  Memory memory() {
    return memory;
  }

  long bytes() {
    return bytes;
  }

  /** {@code count} bytes from byte {@code offset}, copied out. */
  byte[] bytes(long offset, int count) {
    return memory.getByteArray(offset, count);
  }

  /** {@code count} 16-bit values from value {@code index}, copied out. */
  short[] shorts(long index, int count) {
    return memory.getShortArray(2 * index, count);
  }

  /** {@code count} 32-bit floats from value {@code index}, copied out. */
  float[] floats(long index, int count) {
    return memory.getFloatArray(4 * index, count);
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    byte[] piece = new byte[(int) Math.min(PIECE, bytes)];
    for (long at = 0; at < bytes; at += piece.length) {
      int n = (int) Math.min(piece.length, bytes - at);
      memory.read(at, piece, 0, n);
      out.write(piece, 0, n);
    }
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    if (bytes < 1) {
      throw new java.io.InvalidObjectException("A matrix of " + bytes + " bytes");
    }
    memory = new Memory(bytes);
    byte[] piece = new byte[(int) Math.min(PIECE, bytes)];
    for (long at = 0; at < bytes; at += piece.length) {
      int n = (int) Math.min(piece.length, bytes - at);
      in.readFully(piece, 0, n);
      memory.write(at, piece, 0, n);
    }
  }
}
