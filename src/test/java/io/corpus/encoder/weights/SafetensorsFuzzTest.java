package io.corpus.encoder.weights;

import static org.junit.jupiter.api.Assertions.assertNotNull;
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
    int refused = 0;
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
          for (int k = 0; k < 1 + random.nextInt(8); k++) {
            bytes[random.nextInt(bytes.length)] ^= (byte) (1 + random.nextInt(255));
          }
        }
      }
      Files.write(file, bytes);
      try {
        WeightsLoader.load(file, c.naming(), c.settings());
      } catch (WeightsException e) {
        assertNotNull(e.getMessage());
        refused++;
      } catch (Throwable t) {
        fail("round " + round + ": " + t, t);
      }
    }
    System.out.println("SafetensorsFuzzTest: 3000 corrupted files, " + refused + " refused with "
        + "a WeightsException, the rest still valid");
  }
}
