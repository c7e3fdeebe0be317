package io.corpus.encoder.pipeline;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoSerializable;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;

/**
 * A value that travels by Java serialization whatever {@code spark.serializer} says: the model's
 * reduced-precision weights live in native memory and write and read themselves only that way
 * ({@code writeObject}), which Kryo's field-by-field serializer would skip, leaving an executor
 * weights without values. Under Kryo the Java stream is written in framed pieces, so that
 * reading it back never reads past its end, and nothing of the value's size is held at once.
 */
final class JavaSerialized<T extends Serializable> implements Serializable, KryoSerializable {
  private static final long serialVersionUID = 1L;
  private static final int PIECE = 1 << 16;
  private T value;

  JavaSerialized(T value) {
    this.value = value;
  }

  T value() {
    return value;
  }

  @Override
  public void write(Kryo kryo, Output output) {
    try (ObjectOutputStream out = new ObjectOutputStream(new Framed(output))) {
      out.writeObject(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public void read(Kryo kryo, Input input) {
    try (ObjectInputStream in = new ObjectInputStream(new Unframed(input))) {
      value = (T) in.readObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Writes pieces of at most {@link #PIECE} bytes, each after its length; closing writes 0. */
  private static final class Framed extends OutputStream {
    private final Output output;
    private final byte[] piece = new byte[PIECE];
    private int size;

    Framed(Output output) {
      this.output = output;
    }

    @Override
    public void write(int b) {
      if (size == PIECE) {
        flush();
      }
      piece[size++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      while (len > 0) {
        if (size == PIECE) {
          flush();
        }
        int n = Math.min(len, PIECE - size);
        System.arraycopy(b, off, piece, size, n);
        size += n;
        off += n;
        len -= n;
      }
    }

    @Override
    public void flush() {
      if (size > 0) {
        output.writeInt(size);
        output.writeBytes(piece, 0, size);
        size = 0;
      }
    }

    @Override
    public void close() {
      flush();
      output.writeInt(0);
    }
  }

  /** Reads what {@link Framed} wrote, up to its closing 0 and not a byte further. */
  private static final class Unframed extends InputStream {
    private final Input input;
    private int left;
    private boolean ended;

    Unframed(Input input) {
      this.input = input;
    }

    private boolean more() {
      while (left == 0 && !ended) {
        left = input.readInt();
        ended = left == 0;
      }
      return left > 0;
    }

    @Override
    public int read() {
      if (!more()) {
        return -1;
      }
      left--;
      return input.readByte() & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (len == 0) {
        return 0;
      }
      if (!more()) {
        return -1;
      }
      int n = Math.min(len, left);
      input.readBytes(b, off, n);
      left -= n;
      return n;
    }

    @Override
    public void close() {
      while (more()) {           // a reader that stopped early still leaves the frames behind
        input.skip(left);
        left = 0;
      }
    }
  }
}
