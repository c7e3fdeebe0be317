package io.corpus.encoder.weights;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * torch.save files written opcode by opcode, for the reader's refusals: a pickle of protocol 2
 * as torch.save writes it, with whatever a hostile or damaged file puts in its place.
 */
final class PickleFiles {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final int protocol;

  PickleFiles() {
    this(2);
  }

  /** Protocol 2, or 4 (its globals named by two strings and STACK_GLOBAL). */
  PickleFiles(int protocol) {
    this.protocol = protocol;
    out.write(0x80);
    out.write(protocol);
  }

  PickleFiles op(int... bytes) {
    for (int b : bytes) {
      out.write(b);
    }
    return this;
  }

  PickleFiles global(String module, String name) {
    if (protocol < 4) {
      out.write('c');
      out.writeBytes((module + "\n" + name + "\n").getBytes(StandardCharsets.US_ASCII));
      return this;
    }
    for (String part : new String[] {module, name}) {
      out.write(0x8c);   // SHORT_BINUNICODE
      out.write(part.length());
      out.writeBytes(part.getBytes(StandardCharsets.US_ASCII));
    }
    out.write(0x93);     // STACK_GLOBAL
    return this;
  }

  PickleFiles text(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.write('X');
    out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(b.length)
        .array());
    out.writeBytes(b);
    return this;
  }

  /** A whole number as BININT1, BININT or LONG1 (8 bytes), as pickle picks. */
  PickleFiles number(long v) {
    if (v >= 0 && v < 256) {
      return op('K', (int) v);
    }
    if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
      out.write('J');
      out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) v)
          .array());
      return this;
    }
    out.write(0x8a);
    out.write(8);
    out.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array());
    return this;
  }

  /** An empty OrderedDict on the stack, as a state dict starts. */
  PickleFiles stateDict() {
    return global("collections", "OrderedDict").op(')', 'R');
  }

  /**
   * {@code name}: _rebuild_tensor_v2 of storage "0" of {@code storageType}, from {@code offset},
   * with the shape and the strides given as pickle's tuple opcodes write them.
   */
  PickleFiles tensor(String name, String storageType, long offset, Runnable shapeAndStride) {
    return tensor(name, "torch", storageType, offset, shapeAndStride);
  }

  /** As {@link #tensor(String, String, long, Runnable)}, its storage type from {@code module}. */
  PickleFiles tensor(String name, String module, String storageType, long offset,
      Runnable shapeAndStride) {
    text(name).global("torch._utils", "_rebuild_tensor_v2").op('(');
    op('(').text("storage").global(module, storageType).text("0").text("cpu").number(4)
        .op('t', 'Q');
    number(offset);
    shapeAndStride.run();
    return op(0x89).stateDictHooks().op('t', 'R');
  }

  private PickleFiles stateDictHooks() {
    return global("collections", "OrderedDict").op(')', 'R');
  }

  /** The pickle's bytes so far, with a STOP. */
  byte[] stop() {
    out.write('.');
    return out.toByteArray();
  }

  /** A torch.save zip: {@code pickle} as its data.pkl, and {@code storage} as data/0. */
  static Path zip(Path file, byte[] pickle, byte[] storage) throws IOException {
    try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(file))) {
      zip.putNextEntry(new ZipEntry("archive/data.pkl"));
      zip.write(pickle);
      zip.closeEntry();
      if (storage != null) {
        zip.putNextEntry(new ZipEntry("archive/data/0"));
        zip.write(storage);
        zip.closeEntry();
      }
    }
    return file;
  }

  /** A storage entry of {@code bytes} zeros, written a block at a time. */
  static Path zipWithZeros(Path file, byte[] pickle, long bytes) throws IOException {
    try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(file))) {
      zip.putNextEntry(new ZipEntry("archive/data.pkl"));
      zip.write(pickle);
      zip.closeEntry();
      zip.putNextEntry(new ZipEntry("archive/data/0"));
      OutputStream out = zip;
      byte[] block = new byte[1 << 20];
      for (long done = 0; done < bytes; done += block.length) {
        out.write(block, 0, (int) Math.min(block.length, bytes - done));
      }
      zip.closeEntry();
    }
    return file;
  }
}
