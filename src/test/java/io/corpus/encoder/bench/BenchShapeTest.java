package io.corpus.encoder.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** jobs/benchmarks/bench's shapes: the lengths a corpus file gives, and the work they count. */
class BenchShapeTest {
  @Test
  void readsOneLengthPerLineOfIds(@TempDir Path dir) throws Exception {
    Path ids = dir.resolve("ids.jsonl");
    Files.writeString(ids, "{\"id\":\"a\",\"ids\":[101,7,102]}\n"
        + "{\"id\":\"b\",\"ids\":[101, 2, 3, 4, 102]}\n\n{\"id\":\"c\",\"ids\":[]}\n");
    assertArrayEquals(new int[] {3, 5}, Bench.lengthsOf(ids));
  }

  @Test
  void aFileWithoutIdsIsRefusedByName(@TempDir Path dir) throws Exception {
    Path empty = dir.resolve("texts.jsonl");
    Files.writeString(empty, "{\"id\":\"a\",\"text\":\"no ids here\"}\n");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Bench.lengthsOf(empty));
    assertTrue(e.getMessage().contains(empty.toString()), e.getMessage());
  }

  @Test
  void countsTheWorkOfEachSequenceAtItsOwnLength() {
    Bench.Shape shape = Bench.parse(new String[] {"--width", "8", "--heads", "2", "--ffn", "16",
        "--length", "4", "--batch-tokens", "10"});
    assertArrayEquals(new int[] {4, 4}, shape.lengths());   // whole sequences filling a batch
    // per token: QKV 2·8·24, output 2·8·8, feed-forward 4·8·16, attention 4·T·8
    assertEquals(384 + 128 + 512 + 128, shape.flopsPerToken(4));
    assertEquals("T=4", shape.describeLengths());
    assertEquals(384 + 128 + 512, shape.productFlopsPerToken());   // the floor's products
    assertEquals(8, shape.tokens());
    assertEquals(1, shape.layers());
  }

  @Test
  void aCorpusFloorCountsEveryTokenThroughEveryLayer(@TempDir Path dir) throws Exception {
    Path ids = dir.resolve("ids.jsonl");
    Files.writeString(ids, "{\"ids\":[101,7,102]}\n{\"ids\":[101,2,3,4,102]}\n");
    Bench.Shape shape = Bench.parse(new String[] {"--lengths", ids.toString(), "--layers", "6"});
    assertEquals(8, shape.tokens());
    assertEquals(6, shape.layers());
  }

  @Test
  void aRepeatedLengthCountsTheSequencesAsked() {
    Bench.Shape shape = Bench.parse(new String[] {"--length", "128", "--sequences", "256",
        "--layers", "12"});
    assertEquals(256 * 128, shape.tokens());
    assertEquals("T=128", shape.describeLengths());
  }
}
