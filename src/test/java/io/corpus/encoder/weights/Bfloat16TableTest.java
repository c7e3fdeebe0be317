package io.corpus.encoder.weights;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.model.EmbeddingWeights;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A decoder's token table saved in BF16 (as Qwen3's and Gemma's checkpoints are) is kept as
 * stored in bfloat16 and int8, straight from the mapped file into native memory, its rows equal
 * to float32's widening of them; float32 still widens it; a non-finite value in it is refused
 * naming where; a float32 table is held in bfloat16 only where every value already is one.
 */
class Bfloat16TableTest {
  private static final Path QWEN3 = Path.of("src/test/resources/qwen3-cases/qwen3-embedding");
  private static final String TABLE = "embed_tokens.weight";

  @TempDir
  Path tmp;

  private static EmbeddingWeights embeddings(Path folder, Precision precision) {
    return WeightsLoader.load(ModelFolder.read(folder), WeightsLoader.Heads.NONE, precision)
        .embeddings();
  }

  @Test
  void aBf16TableIsKeptAsStoredInTheReducedPrecisionsWithTheSameRows() {
    Matrix widened = embeddings(QWEN3, Precision.FLOAT32).word();
    assertEquals(Precision.FLOAT32, widened.precision());
    for (Precision p : new Precision[] {Precision.INT8, Precision.BFLOAT16}) {
      Matrix kept = embeddings(QWEN3, p).word();
      assertEquals(Precision.BFLOAT16, kept.precision(), p.configName());
      assertEquals(widened.rows(), kept.rows());
      assertEquals(2L * widened.rows() * widened.cols(), kept.bytes());
      assertArrayEquals(widened.floats(), kept.floats(), p.configName());
      float[] row = new float[kept.cols()];
      kept.row(7, row, 0);
      float[] expected = new float[widened.cols()];
      widened.row(7, expected, 0);
      assertArrayEquals(expected, row);
    }
  }

  @Test
  void aNonFiniteValueInTheTableIsRefusedNamingWhere() throws IOException {
    Path folder = tmp.resolve("qwen3");
    try (Stream<Path> files = Files.walk(QWEN3)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.copy(f, folder.resolve(QWEN3.relativize(f).toString()));
      }
    }
    Path weights = folder.resolve("model.safetensors");
    byte[] bytes = Files.readAllBytes(weights);
    long headerLength = ByteBuffer.wrap(bytes, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    JsonNode header = new ObjectMapper().readTree(new String(bytes, 8, (int) headerLength,
        StandardCharsets.UTF_8));
    long start = 8 + headerLength + header.get(TABLE).get("data_offsets").get(0).asLong();
    int index = 1234;
    bytes[(int) (start + 2 * index)] = (byte) 0x80;       // 0xFF80: -infinity
    bytes[(int) (start + 2 * index + 1)] = (byte) 0xFF;
    Files.write(weights, bytes);
    WeightsException e = assertThrows(WeightsException.class,
        () -> embeddings(folder, Precision.INT8));
    assertEquals("Tensor " + TABLE + " holds -Infinity at flat index " + index + ": " + folder,
        e.getMessage());
    e = assertThrows(WeightsException.class, () -> embeddings(folder, Precision.FLOAT32));
    assertEquals("Tensor " + TABLE + " holds -Infinity at flat index " + index + ": " + folder,
        e.getMessage());
  }

  @Test
  void aFloat32TableIsHeldInBfloat16OnlyWhereEveryValueIsOne() {
    float[] exact = {1f, -2.5f, 0.15625f, 3f, 0f, -0.5f};
    EmbeddingWeights table = EmbeddingWeights.wordsOnly(exact, 3);
    assertEquals(Precision.FLOAT32, table.in(Precision.FLOAT32).word().precision());
    assertEquals(Precision.BFLOAT16, table.in(Precision.INT8).word().precision());
    assertArrayEquals(exact, table.in(Precision.BFLOAT16).word().floats());
    float[] inexact = exact.clone();
    inexact[4] = 0.1f;                                    // not a bfloat16
    assertEquals(Precision.FLOAT32, EmbeddingWeights.wordsOnly(inexact, 3)
        .in(Precision.BFLOAT16).word().precision());
  }
}
