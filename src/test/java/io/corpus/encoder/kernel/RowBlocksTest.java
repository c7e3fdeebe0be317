package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RowBlocksTest {

  /** Blocks cover [0, n) once, in order, none above the most, all but the last of equal rows. */
  @ParameterizedTest(name = "{0} rows, at most {1}")
  @CsvSource({"0, 2048", "1, 2048", "511, 2048", "512, 2048", "1024, 2048", "2048, 2048",
      "2049, 2048", "2600, 2048", "8192, 2048", "8193, 2048", "4000, 256", "300, 256",
      "17, 1"})
  void blocksCoverTheBatchOnceWithinTheMost(int n, int most) {
    RowBlocks blocks = RowBlocks.of(n, most);
    int next = 0;
    for (int i = 0; i < blocks.count(); i++) {
      assertEquals(next, blocks.first(i));
      assertTrue(blocks.rows(i) >= 1 && blocks.rows(i) <= most, "block " + i);
      if (i < blocks.count() - 1) {
        assertEquals(blocks.rows(), blocks.rows(i));
      }
      next += blocks.rows(i);
    }
    assertEquals(n, next);
  }

  @Test
  void aBatchThatFitsOneBlockIsHalvedFromTwiceTheSplitRows() {
    assertEquals(1, RowBlocks.of(2 * RowBlocks.SPLIT_ROWS - 1, 2048).count());
    RowBlocks halves = RowBlocks.of(1024, 2048);
    assertEquals(2, halves.count());
    assertEquals(512, halves.rows(0));
    assertEquals(512, halves.rows(1));
    assertEquals(2, RowBlocks.of(2048, 2048).count());
  }

  /** 2,600 rows: two near halves on aligned starts, not 2,048 and 552. */
  @Test
  void blocksAreEvenOnAlignedStarts() {
    RowBlocks blocks = RowBlocks.of(2600, 2048);
    assertEquals(2, blocks.count());
    assertEquals(1312, blocks.rows(0));
    assertEquals(1288, blocks.rows(1));
    assertEquals(0, RowBlocks.of(8193, 2048).rows() % RowBlocks.ALIGN);
  }

  /** An odd count of blocks is made even, so two cores take equal shares: 5,000 in 4, not 3. */
  @Test
  void theCountOfBlocksIsMadeEven() {
    RowBlocks blocks = RowBlocks.of(5000, 2048);
    assertEquals(4, blocks.count());
    assertEquals(1264, blocks.rows(0));
    assertEquals(1208, blocks.rows(3));
    assertEquals(6, RowBlocks.of(8193, 2048).count());
    assertEquals(4, RowBlocks.of(8192, 2048).count());
    assertEquals(2048, RowBlocks.of(8192, 2048).rows());
  }

  @Test
  void aBlockHasAtLeastOneRow() {
    assertThrows(IllegalArgumentException.class, () -> RowBlocks.of(10, 0));
  }
}
