package io.corpus.encoder.weights;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.model.EmbeddingWeights;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.FeedForward;
import io.corpus.encoder.model.LayerWeights;
import io.corpus.encoder.testing.SystemProperty;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * A decoder's token table saved in BF16 (as Qwen3's and Gemma's checkpoints are) is kept as
 * stored in bfloat16 and int8, straight from the mapped file into native memory, its rows equal
 * to float32's widening of them; float32 still widens it; in bfloat16 its layers' matrices are
 * read the same way (the q, k and v projections stacked natively), equal to float32's; a non-finite value in it is refused
 * naming where; a float32 table is held in bfloat16 only where every value already is one.
 */
@Isolated
class Bfloat16TableTest {
  private static final Path QWEN3 = Path.of("src/test/resources/qwen3-cases/qwen3-embedding");
  private static final String TABLE = "embed_tokens.weight";
  private static final String LOAD_THREADS = "encoder.load-threads";

  @TempDir
  Path tmp;

  private static EmbeddingWeights embeddings(Path folder, Precision precision) {
    return WeightsLoader.load(ModelFolder.read(folder), AskedHead.NONE, precision)
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
  void aBf16DecodersLayersAreReadAsStoredInBfloat16() {
    EncoderWeights widened = WeightsLoader.load(ModelFolder.read(QWEN3),
        AskedHead.NONE, Precision.FLOAT32).encoder();
    EncoderWeights kept = WeightsLoader.load(ModelFolder.read(QWEN3),
        AskedHead.NONE, Precision.BFLOAT16).encoder();
    for (int layer = 0; layer < kept.layers().size(); layer++) {
      LayerWeights w = widened.layers().get(layer);
      LayerWeights k = kept.layers().get(layer);
      FeedForward.Gated wf = (FeedForward.Gated) w.feedForward();
      FeedForward.Gated kf = (FeedForward.Gated) k.feedForward();
      Matrix[][] pairs = {{w.inProjWeight(), k.inProjWeight()},
          {w.outProjWeight(), k.outProjWeight()}, {wf.activated(), kf.activated()},
          {wf.linear(), kf.linear()}, {wf.out(), kf.out()}};
      for (Matrix[] pair : pairs) {
        assertEquals(Precision.BFLOAT16, pair[1].precision());
        assertEquals(pair[0].rows(), pair[1].rows());
        assertEquals(pair[0].cols(), pair[1].cols());
        assertArrayEquals(pair[0].floats(), pair[1].floats(), "layer " + layer);
      }
    }
    // read as stored: loading in bfloat16 allocates less than float32's load by at least the
    // layers' float32 bytes (widened then rounded, it allocated as much as float32's and more)
    long layerBytes = 0;
    for (LayerWeights w : widened.layers()) {
      FeedForward.Gated f = (FeedForward.Gated) w.feedForward();
      for (Matrix m : new Matrix[] {w.inProjWeight(), w.outProjWeight(), f.activated(),
          f.linear(), f.out()}) {
        layerBytes += 4L * m.rows() * m.cols();
      }
    }
    long float32;
    long bfloat16;
    // every allocation on this thread
    try (SystemProperty oneThread = SystemProperty.set(LOAD_THREADS, "1")) {
      float32 = allocatedLoading(Precision.FLOAT32);
      bfloat16 = allocatedLoading(Precision.BFLOAT16);
    }
    assertTrue(bfloat16 < float32 - layerBytes, "bfloat16's load allocated " + bfloat16
        + " bytes, float32's " + float32 + ", the layers' float32 bytes " + layerBytes);
  }

  /**
   * The layers are read on two threads: each in its place, and a bad value in the last layer
   * refused with its tensor's name, as one thread refused it.
   */
  @Test
  void layersReadOnTwoThreadsKeepTheirOrderAndTheirErrors(@org.junit.jupiter.api.io.TempDir
      Path tmp) throws Exception {
    EncoderWeights one;
    try (SystemProperty oneThread = SystemProperty.set(LOAD_THREADS, "1")) {
      one = WeightsLoader.load(ModelFolder.read(QWEN3), AskedHead.NONE,
          Precision.FLOAT32).encoder();
    }
    try (SystemProperty twoThreads = SystemProperty.set(LOAD_THREADS, "2")) {
      EncoderWeights two = WeightsLoader.load(ModelFolder.read(QWEN3), AskedHead.NONE,
          Precision.FLOAT32).encoder();
      assertEquals(one.layers().size(), two.layers().size());
      for (int l = 0; l < one.layers().size(); l++) {
        assertArrayEquals(((FeedForward.Gated) one.layers().get(l).feedForward()).out().floats(),
            ((FeedForward.Gated) two.layers().get(l).feedForward()).out().floats(),
            "layer " + l);
      }
      Path broken = io.corpus.encoder.testing.FolderCopies.copy(QWEN3, tmp.resolve("broken"));
      Path weights = broken.resolve("model.safetensors");
      SafetensorsFile file = SafetensorsFile.open(weights);
      SafetensorsWriter writer = new SafetensorsWriter();
      String bad = "layers." + (one.layers().size() - 1) + ".mlp.down_proj.weight";
      String stored = null;
      for (String name : file.names()) {
        float[] values = file.read(name);
        if (name.endsWith(bad)) {
          values[3] = Float.NaN;
          stored = name;
        }
        writer.put(name, values, file.info(name).shape());
      }
      Files.delete(weights);
      writer.write(weights);
      String named = stored;
      WeightsException e = assertThrows(WeightsException.class, () -> WeightsLoader.load(
          ModelFolder.read(broken), AskedHead.NONE, Precision.FLOAT32));
      assertTrue(e.getMessage().startsWith("Tensor " + named + " holds NaN at flat index 3: "),
          e.getMessage());
    }
  }

  private static long allocatedLoading(Precision precision) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long least = Long.MAX_VALUE;
    for (int run = 0; run < 3; run++) {      // the least of three: class loading left out
      long before = threads.getCurrentThreadAllocatedBytes();
      WeightsLoader.load(ModelFolder.read(QWEN3), AskedHead.NONE, precision);
      least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
    }
    return least;
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
