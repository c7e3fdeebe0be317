package io.corpus.encoder.weights;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A safetensors file: an 8-byte little-endian header length, a JSON header mapping tensor names to
 * {@code dtype}, {@code shape} and {@code data_offsets} (relative to the end of the header), then
 * the raw little-endian data.
 *
 * <p>Every claim of the header is checked against the file before anything is read: the header
 * length, each tensor's offsets (inside the data, not overlapping, matching the shape and dtype),
 * so the reader never allocates more than the file holds. F32 is read as is; F16 and BF16 are
 * widened to float, or copied as stored ({@link #readStored}). A tensor is read when asked for,
 * in pieces of 1 MB, so files and tensors of any size (a 7B model's 4 GB shards, its 2.2 GB
 * float32 embedding table) are read.
 */
public final class SafetensorsFile {
  /** The header's reader: a tensor named twice is refused, as the Rust safetensors refuses it. */
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  /**
   * The format's element types, with their size in bytes. Only the floating ones are weights;
   * the others (such as the I64 {@code position_ids} buffer of older BERT checkpoints) are checked
   * like any tensor but cannot be read as floats.
   */
  public enum DType {
    F32(4, true), F16(2, true), BF16(2, true),
    F64(8, false), I64(8, false), I32(4, false), I16(2, false), I8(1, false), U8(1, false),
    BOOL(1, false);

    private final int bytes;
    private final boolean weights;

    DType(int bytes, boolean weights) {
      this.bytes = bytes;
      this.weights = weights;
    }

    /** Whether tensors of this type are read as weights (F32, F16, BF16). */
    public boolean floating() {
      return weights;
    }
  }

  /** One tensor's entry in the header; {@code start} and {@code end} are absolute file offsets. */
  public record TensorInfo(String name, DType dtype, long[] shape, long start, long end) {
    public long elementCount() {
      long count = 1;
      for (long d : shape) {
        count *= d;
      }
      return count;
    }

    public String shapeString() {
      return Arrays.toString(shape);
    }
  }

  /**
   * The most bytes of a tensor read at once: any file and tensor size is read in pieces, read
   * rather than mapped, so that the file's pages do not count in the job's resident memory.
   */
  private static final int PIECE_BYTES = 1 << 20;

  /**
   * Each thread's piece, in native memory and used again for every tensor: the channel reads
   * straight into it (a heap buffer is read through a native copy of its own size) and the
   * values are widened from it into the tensor's array, so loading allocates nothing on the heap
   * beside the weights themselves (BERT-base: 340 MB of pieces before, each a collection's worth
   * of garbage while Spark starts).
   */
  private static final ThreadLocal<ByteBuffer> PIECE = ThreadLocal.withInitial(
      () -> ByteBuffer.allocateDirect(PIECE_BYTES).order(ByteOrder.LITTLE_ENDIAN));

  private final Path path;
  private final Map<String, TensorInfo> tensors;

  private SafetensorsFile(Path path, Map<String, TensorInfo> tensors) {
    this.path = path;
    this.tensors = tensors;
  }

  /**
   * Opens and validates {@code path} (its header only: tensors are read when asked for, so a
   * file of any size opens); throws {@link WeightsException} naming what is wrong.
   */
  public static SafetensorsFile open(Path path) {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      long fileSize = channel.size();
      if (fileSize < 8) {
        throw new WeightsException("Not a safetensors file (" + fileSize + " bytes, too short "
            + "for the header length): " + path);
      }
      long headerLength = readFully(channel, 0, 8).getLong(0);
      if (headerLength < 2 || headerLength > fileSize - 8 || headerLength > Integer.MAX_VALUE) {
        throw new WeightsException("Not a safetensors file: header length " + headerLength
            + " does not fit in the file's " + fileSize + " bytes: " + path);
      }
      byte[] header = new byte[(int) headerLength];
      readFully(channel, 8, (int) headerLength).get(0, header);
      return new SafetensorsFile(path, parseHeader(path, fileSize, header));
    } catch (NoSuchFileException e) {
      throw new WeightsException("Weights file not found: " + path);
    } catch (IOException e) {
      throw new WeightsException("Cannot read weights file " + path + ": " + e.getMessage(), e);
    }
  }

  private static ByteBuffer readFully(FileChannel channel, long position, int length)
      throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
    fill(channel, buffer, position);
    return buffer;
  }

  public Path path() {
    return path;
  }

  /** Tensor names in file order. */
  public List<String> names() {
    return List.copyOf(tensors.keySet());
  }

  public boolean contains(String name) {
    return tensors.containsKey(name);
  }

  public TensorInfo info(String name) {
    TensorInfo info = tensors.get(name);
    if (info == null) {
      throw new WeightsException("Tensor " + name + " is missing from " + path);
    }
    return info;
  }

  /** The tensor's values, widened to float, row-major. */
  public float[] read(String name) {
    return read(name, 0, Math.toIntExact(info(name).elementCount()));
  }

  /**
   * {@code count} values of the tensor from flat index {@code first} (whole rows of a table,
   * where only a few of its rows are needed), widened to float.
   */
  public float[] read(String name, long first, int count) {
    TensorInfo info = info(name);
    if (!info.dtype().floating()) {
      throw new WeightsException("Tensor " + name + " is " + info.dtype() + ", not a weight "
          + "tensor (F32, F16, BF16): " + path);
    }
    if (first < 0 || count < 0 || first + count > info.elementCount()) {
      throw new IllegalArgumentException("values " + first + ".." + (first + count) + " of "
          + name + ", which has " + info.elementCount());
    }
    float[] out = new float[count];
    int width = info.dtype() == DType.F32 ? 4 : 2;
    int perPiece = PIECE_BYTES / width;
    long start = info.start() + first * width;
    ByteBuffer piece = PIECE.get();
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      for (int done = 0; done < count; done += perPiece) {
        int n = Math.min(perPiece, count - done);
        piece.clear().limit(n * width);
        fill(channel, piece, start + (long) done * width);
        piece.flip();
        switch (info.dtype()) {
          case F32 -> piece.asFloatBuffer().get(out, done, n);
          case F16 -> {
            for (int i = 0; i < n; i++) {
              out[done + i] = HalfFloats.halfToFloat(piece.getShort(2 * i));
            }
          }
          case BF16 -> {
            for (int i = 0; i < n; i++) {
              out[done + i] = Float.intBitsToFloat((piece.getShort(2 * i) & 0xffff) << 16);
            }
          }
          default -> throw new IllegalStateException("not a weight type: " + info.dtype());
        }
      }
    } catch (IOException e) {
      throw new WeightsException("Cannot read tensor " + name + " of " + path + ": "
          + e.getMessage(), e);
    }
    return out;
  }

  /**
   * Every value of a tensor of any numeric type (integers as well as floats: a token mapping, a
   * table stored as int8), widened to double, row-major; for the small tensors that are not
   * layer weights.
   */
  public double[] readNumbers(String name) {
    TensorInfo info = info(name);
    if (info.dtype() == DType.BOOL) {
      throw new WeightsException("Tensor " + name + " is BOOL, not numbers: " + path);
    }
    ByteBuffer bytes = ByteBuffer.allocate(Math.toIntExact(info.end() - info.start()))
        .order(ByteOrder.LITTLE_ENDIAN);
    readStored(name, bytes);
    bytes.flip();
    double[] out = new double[Math.toIntExact(info.elementCount())];
    for (int i = 0; i < out.length; i++) {
      out[i] = switch (info.dtype()) {
        case F32 -> bytes.getFloat();
        case F16 -> HalfFloats.halfToFloat(bytes.getShort());
        case BF16 -> Float.intBitsToFloat((bytes.getShort() & 0xffff) << 16);
        case F64 -> bytes.getDouble();
        case I64 -> bytes.getLong();
        case I32 -> bytes.getInt();
        case I16 -> bytes.getShort();
        case I8 -> bytes.get();
        case U8 -> bytes.get() & 0xff;
        case BOOL -> throw new AssertionError();
      };
    }
    return out;
  }

  /**
   * A tensor's bytes as they are stored (little-endian values), read into {@code target} from
   * its position to its limit, which must be the tensor's size: straight into native memory
   * where {@code target} is a view of it, never onto the heap.
   */
  public void readStored(String name, ByteBuffer target) {
    TensorInfo info = info(name);
    if (target.remaining() != info.end() - info.start()) {
      throw new IllegalArgumentException(name + " holds " + (info.end() - info.start())
          + " bytes, not " + target.remaining());
    }
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      fill(channel, target, info.start());
    } catch (IOException e) {
      throw new WeightsException("Cannot read tensor " + name + " of " + path + ": "
          + e.getMessage(), e);
    }
  }

  /** Reads the file from {@code position} until {@code buffer} is full. */
  private static void fill(FileChannel channel, ByteBuffer buffer, long position)
      throws IOException {
    long end = position + buffer.remaining();
    for (long at = position; buffer.hasRemaining(); ) {
      int n = channel.read(buffer, at);
      if (n < 0) {
        throw new IOException("the file ends before byte " + end);
      }
      at += n;
    }
  }

  private static Map<String, TensorInfo> parseHeader(Path path, long fileSize,
      byte[] headerBytes) {
    long headerLength = headerBytes.length;
    JsonNode header;
    try {
      header = JSON.readTree(StandardCharsets.UTF_8.newDecoder()
          .decode(java.nio.ByteBuffer.wrap(headerBytes)).toString());
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new WeightsException("Not a safetensors file: its header is not UTF-8 (a tensor "
          + "name or a value holds bytes that are not): " + path);
    } catch (IOException e) {
      throw new WeightsException("Not a safetensors file: its header is "
          + io.corpus.encoder.common.JsonProblem.of(e) + ": " + path);
    }
    if (header == null || !header.isObject()) {
      throw new WeightsException("Not a safetensors file: its header is not a JSON object: " + path);
    }
    long dataStart = 8 + headerLength;
    long dataLength = fileSize - dataStart;
    Map<String, TensorInfo> tensors = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = header.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      if (entry.getKey().equals("__metadata__")) {
        continue;
      }
      TensorInfo info = parseEntry(path, entry.getKey(), entry.getValue(), dataStart, dataLength);
      tensors.put(info.name(), info);
    }
    checkNoOverlap(path, tensors);
    return Collections.unmodifiableMap(tensors);
  }

  private static TensorInfo parseEntry(Path path, String name, JsonNode node, long dataStart,
      long dataLength) {
    JsonNode dtypeNode = node.path("dtype");
    JsonNode shapeNode = node.path("shape");
    JsonNode offsetsNode = node.path("data_offsets");
    if (!dtypeNode.isTextual() || !shapeNode.isArray() || !offsetsNode.isArray()
        || offsetsNode.size() != 2) {
      throw new WeightsException("Tensor " + name + " has a malformed header entry " + node
          + " (expected dtype, shape and two data_offsets): " + path);
    }
    DType dtype;
    try {
      dtype = DType.valueOf(dtypeNode.asText());
    } catch (IllegalArgumentException e) {
      throw new WeightsException("Tensor " + name + " has dtype " + dtypeNode.asText()
          + ", not a safetensors type (F32, F16, BF16, F64, I64, I32, I16, I8, U8, BOOL): "
          + path);
    }
    long[] shape = new long[shapeNode.size()];
    long elements = 1;
    for (int i = 0; i < shape.length; i++) {
      JsonNode d = shapeNode.get(i);
      if (!d.canConvertToLong() || !d.isIntegralNumber() || d.asLong() < 0) {
        throw new WeightsException("Tensor " + name + " has an invalid shape " + shapeNode + ": "
            + path);
      }
      shape[i] = d.asLong();
      elements = shape[i] == 0 ? 0 : multiplyWithin(elements, shape[i], dataLength, name, path);
    }
    long start = offset(offsetsNode.get(0), name, path);
    long end = offset(offsetsNode.get(1), name, path);
    if (start > end || end > dataLength) {
      throw new WeightsException("Tensor " + name + " has data_offsets [" + start + ", " + end
          + "] outside the file's " + dataLength + " data bytes: " + path);
    }
    if (end - start != elements * dtype.bytes) {
      throw new WeightsException("Tensor " + name + " has " + (end - start) + " data bytes, but "
          + dtype + " " + Arrays.toString(shape) + " needs " + elements * dtype.bytes + ": " + path);
    }
    if (elements > Integer.MAX_VALUE - 8) {
      throw new WeightsException("Tensor " + name + " has " + elements
          + " elements, more than a Java array holds: " + path);
    }
    return new TensorInfo(name, dtype, shape, dataStart + start, dataStart + end);
  }

  private static long multiplyWithin(long elements, long dim, long dataLength, String name,
      Path path) {
    if (dim > dataLength || elements > dataLength / dim) {
      throw new WeightsException("Tensor " + name + " claims more elements than the file's "
          + dataLength + " data bytes hold: " + path);
    }
    return elements * dim;
  }

  private static long offset(JsonNode node, String name, Path path) {
    if (node == null || !node.isIntegralNumber() || !node.canConvertToLong() || node.asLong() < 0) {
      throw new WeightsException("Tensor " + name + " has an invalid data offset " + node + ": "
          + path);
    }
    return node.asLong();
  }

  private static void checkNoOverlap(Path path, Map<String, TensorInfo> tensors) {
    List<TensorInfo> sorted = new ArrayList<>(tensors.values());
    sorted.sort(Comparator.comparingLong(TensorInfo::start).thenComparingLong(TensorInfo::end));
    for (int i = 1; i < sorted.size(); i++) {
      TensorInfo previous = sorted.get(i - 1);
      TensorInfo current = sorted.get(i);
      if (current.start() < previous.end()) {
        throw new WeightsException("Tensors " + previous.name() + " and " + current.name()
            + " overlap in the data section: " + path);
      }
    }
  }
}
