package io.corpus.encoder.weights;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.corpus.encoder.testing.GoldenCase;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Thousands of corrupted weights files: flipped bytes in the header and the data, cut lengths,
 * absurd header lengths. Each must load or fail with a {@link WeightsException} that says why;
 * never another exception, a crash or an out-of-memory.
 */
class SafetensorsFuzzTest {
  @TempDir
  Path tmp;

  @Test
  void corruptedFilesFailCleanly() throws Exception {
    GoldenCase c = GoldenCase.named("seed-shapes");
    byte[] original = Files.readAllBytes(c.weights());
    int headerEnd = 8 + (int) ByteBuffer.wrap(original).order(ByteOrder.LITTLE_ENDIAN).getLong();
    Random random = new Random(42);
    Path file = tmp.resolve("fuzz.safetensors");
    int[] refused = new int[4];
    int[] unchanged = new int[4];   // files equal to the original: these must load
    int headerTouched = 0;          // files of the last kind with a flip in the header
    for (int round = 0; round < 3000; round++) {
      byte[] bytes;
      switch (round % 4) {
        case 0 -> { // flip bytes in the header
          bytes = original.clone();
          for (int k = 0; k < 1 + random.nextInt(4); k++) {
            bytes[8 + random.nextInt(headerEnd - 8)] ^= (byte) (1 + random.nextInt(255));
          }
        }
        case 1 -> // cut the file anywhere
          bytes = Arrays.copyOf(original, random.nextInt(original.length));
        case 2 -> { // absurd or slightly wrong header lengths
          bytes = original.clone();
          long length = switch (random.nextInt(4)) {
            case 0 -> random.nextLong();
            case 1 -> Long.MAX_VALUE - random.nextInt(100);
            case 2 -> headerEnd - 8 + random.nextInt(64) - 32;
            default -> 1L << (20 + random.nextInt(40));
          };
          ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putLong(0, length);
        }
        default -> { // flip bytes anywhere, data included (NaN weights and friends)
          bytes = original.clone();
          boolean header = false;
          for (int k = 0; k < 1 + random.nextInt(8); k++) {
            int at = random.nextInt(bytes.length);
            bytes[at] ^= (byte) (1 + random.nextInt(255));
            header |= at < headerEnd;
          }
          headerTouched += header ? 1 : 0;
        }
      }
      Files.write(file, bytes);
      boolean same = Arrays.equals(bytes, original);
      unchanged[round % 4] += same ? 1 : 0;
      try {
        WeightsLoader.load(file, c.naming(), c.settings());
      } catch (WeightsException e) {
        assertNotNull(e.getMessage());
        assertFalse(same, "round " + round + ": the original file was refused: " + e.getMessage());
        refused[round % 4]++;
      } catch (Throwable t) {
        fail("round " + round + ": " + t, t);
      }
    }
    System.out.println("SafetensorsFuzzTest: 3000 corrupted files; refused with a "
        + "WeightsException: header flips " + refused[0] + ", cuts " + refused[1]
        + ", header lengths " + refused[2] + ", flips anywhere " + refused[3] + " of 750 each");
    // A file cut short, or whose header length is not its own, can never be read as weights.
    assertEquals(750, refused[1] + unchanged[1], "every cut file is refused");
    assertEquals(750, refused[2] + unchanged[2], "every wrong header length is refused");
    // The header is compact JSON: every flipped byte breaks its syntax, a name, a dtype, a shape
    // or an offset. Flips in the data section only change weight values: those files load.
    assertEquals(750, refused[0], "every header flip is refused");
    assertEquals(headerTouched, refused[3], "flips anywhere: refused exactly when one hit the "
        + "header");
  }
}
