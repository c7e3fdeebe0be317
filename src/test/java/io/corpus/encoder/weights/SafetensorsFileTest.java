package io.corpus.encoder.weights;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SafetensorsFileTest {
  @TempDir
  Path tmp;

  @Test
  void readsWhatTheWriterWrote() throws IOException {
    Path file = tmp.resolve("w.safetensors");
    float[] a = {1.5f, -2f, 3.25f, 0f, 7f, 8f};
    new SafetensorsWriter().put("b", new float[] {9f}, 1).put("a", a, 2, 3).write(file);
    SafetensorsFile f = SafetensorsFile.open(file);
    assertEquals(java.util.List.of("a", "b"), f.names());
    assertArrayEquals(new long[] {2, 3}, f.info("a").shape());
    assertArrayEquals(a, f.read("a"));
    assertArrayEquals(new float[] {9f}, f.read("b"));
  }

  /**
   * Tensors of several pieces (the reader's 1 MB), one after the other on one thread, whole and
   * from an offset that is not a piece's: every value where it belongs, none left over from the
   * piece the previous tensor filled.
   */
  @Test
  void readsTensorsLargerThanAPieceWholeAndFromAnOffset() throws IOException {
    Path file = tmp.resolve("large.safetensors");
    int n = 700_001;   // 2.8 MB in F32: three pieces, the last one partly filled
    float[] a = new float[n];
    float[] b = new float[n / 2];
    for (int i = 0; i < n; i++) {
      a[i] = i * 0.5f - 7f;
    }
    for (int i = 0; i < b.length; i++) {
      b[i] = -i;
    }
    new SafetensorsWriter().put("a", a, n).put("b", b, b.length).write(file);
    SafetensorsFile f = SafetensorsFile.open(file);
    assertArrayEquals(a, f.read("a"));
    assertArrayEquals(b, f.read("b"));
    int first = 262_143;   // the last value of the first piece
    assertArrayEquals(java.util.Arrays.copyOfRange(a, first, first + 300_000),
        f.read("a", first, 300_000));
    Path bf16 = tmp.resolve("large-bf16.safetensors");
    ByteBuffer data = ByteBuffer.allocate(2 * n).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < n; i++) {
      data.putShort((short) (Float.floatToIntBits(i) >>> 16));   // exact in bfloat16 below 256
    }
    write(bf16, "{\"w\":{\"dtype\":\"BF16\",\"shape\":[" + n + "],\"data_offsets\":[0,"
        + 2 * n + "]}}", data.array());
    float[] widened = SafetensorsFile.open(bf16).read("w");
    for (int i : new int[] {0, 255, 524_287, 524_288, n - 1}) {
      assertEquals(Float.intBitsToFloat(Float.floatToIntBits(i) >>> 16 << 16), widened[i],
          "value " + i);
    }
  }

  /** One row of a table read alone (a reranker's yes and no rows of lm_head), F32 and F16. */
  @Test
  void readsOneRowOfATableAlone() throws IOException {
    Path file = tmp.resolve("rows.safetensors");
    float[] table = {1f, 2f, 3f, 4f, 5f, 6f, 7f, 8f, 9f, 10f, 11f, 12f};
    new SafetensorsWriter().put("t", table, 4, 3).write(file);
    Checkpoint checkpoint = Checkpoint.of(file);
    assertArrayEquals(new float[] {7f, 8f, 9f}, checkpoint.readRow("t", 2));
    assertArrayEquals(new float[] {10f, 11f, 12f}, checkpoint.readRow("t", 3));
    Path half = tmp.resolve("half-rows.safetensors");
    String header = "{\"h\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,8]}}";
    write(half, header, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN)
        .putShort((short) 0x3c00).putShort((short) 0xc000).putShort((short) 0x3800)
        .putShort((short) 0x0001).array());
    assertArrayEquals(new float[] {0.5f, 0x1p-24f}, Checkpoint.of(half).readRow("h", 1));
  }

  @Test
  void widensHalfAndBfloat16() throws IOException {
    // F16: 1.0 = 0x3c00, -2.0 = 0xc000, 0.5 = 0x3800, smallest subnormal 0x0001 = 2^-24.
    // BF16: 1.0 = 0x3f80, -3.0 = 0xc040.
    Path file = tmp.resolve("half.safetensors");
    String header = "{\"h\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[0,8]},"
        + "\"b\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[8,12]}}";
    ByteBuffer data = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN)
        .putShort((short) 0x3c00).putShort((short) 0xc000).putShort((short) 0x3800)
        .putShort((short) 0x0001).putShort((short) 0x3f80).putShort((short) 0xc040);
    write(file, header, data.array());
    SafetensorsFile f = SafetensorsFile.open(file);
    assertArrayEquals(new float[] {1f, -2f, 0.5f, 0x1p-24f}, f.read("h"));
    assertArrayEquals(new float[] {1f, -3f}, f.read("b"));
  }

  @Test
  void refusesWhatIsNotSafetensors() throws IOException {
    Path file = tmp.resolve("x.safetensors");
    Files.write(file, new byte[] {1, 2, 3});
    assertMessage(file, "Not a safetensors file (3 bytes, too short for the header length): "
        + file);
    Files.write(file, "this is a text file, not weights".getBytes(StandardCharsets.UTF_8));
    assertTrue(message(file).startsWith("Not a safetensors file: header length "));
    write(file, "[1,2]", new byte[0]);
    assertMessage(file, "Not a safetensors file: its header is not a JSON object: " + file);
  }

  @Test
  void refusesOffsetsOutsideTheFileOverlapsWrongSizesAndDtypes() throws IOException {
    Path file = tmp.resolve("bad.safetensors");
    write(file, "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", new byte[8]);
    assertMessage(file, "Tensor a has data_offsets [0, 16] outside the file's 8 data bytes: "
        + file);
    write(file, "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
        + "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", new byte[12]);
    assertMessage(file, "Tensors a and b overlap in the data section: " + file);
    write(file, "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", new byte[8]);
    assertMessage(file, "Tensor a has 8 data bytes, but F32 [3] needs 12: " + file);
    write(file, "{\"a\":{\"dtype\":\"Q4\",\"shape\":[1],\"data_offsets\":[0,8]}}", new byte[8]);
    assertMessage(file, "Tensor a has dtype Q4, not a safetensors type (F32, F16, BF16, F64, I64, "
        + "I32, I16, I8, U8, BOOL): " + file);
    write(file, "{\"a\":{\"dtype\":\"I64\",\"shape\":[2],\"data_offsets\":[0,8]}}", new byte[8]);
    assertMessage(file, "Tensor a has 8 data bytes, but I64 [2] needs 16: " + file);
    write(file, "{\"a\":{\"dtype\":\"F32\",\"shape\":[4000000000,4000000000],"
        + "\"data_offsets\":[0,8]}}", new byte[8]);
    assertMessage(file, "Tensor a claims more elements than the file's 8 data bytes hold: "
        + file);
  }

  /** What the Rust safetensors library refuses: a tensor named twice, a header not UTF-8. */
  @Test
  void refusesATensorNamedTwiceAndAHeaderThatIsNotUtf8() throws IOException {
    Path file = tmp.resolve("twice.safetensors");
    write(file, "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
        + "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", new byte[8]);
    assertTrue(message(file).startsWith("Not a safetensors file: its header is JSON that names "
        + "'a' twice (line 1, column "), message(file));
    byte[] h = "{\"a\u00ff\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}"
        .getBytes(StandardCharsets.ISO_8859_1);
    ByteBuffer b = ByteBuffer.allocate(8 + h.length + 4).order(ByteOrder.LITTLE_ENDIAN);
    Files.write(file, b.putLong(h.length).put(h).put(new byte[4]).array());
    assertMessage(file, "Not a safetensors file: its header is not UTF-8 (a tensor name or a "
        + "value holds bytes that are not): " + file);
  }

  @Test
  void missingFileIsNamed() {
    Path file = tmp.resolve("nowhere.safetensors");
    assertMessage(file, "Weights file not found: " + file);
  }

  static void write(Path file, String header, byte[] data) throws IOException {
    byte[] h = header.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(8 + h.length + data.length).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(h.length).put(h).put(data);
    Files.write(file, b.array());
  }

  private static String message(Path file) {
    return assertThrows(WeightsException.class, () -> SafetensorsFile.open(file)).getMessage();
  }

  private static void assertMessage(Path file, String expected) {
    assertEquals(expected, message(file));
  }
}
