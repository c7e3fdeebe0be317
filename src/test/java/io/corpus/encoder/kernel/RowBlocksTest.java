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

  /**
   * The cuts themselves: one block below twice the split rows, halves from there (1,024 and
   * 2,048 rows), near halves on aligned starts (2,600: not 2,048 and 552), an odd count made
   * even (5,000: four blocks, not 2,048 + 2,048 + 904; 8,193: six), an even count left alone.
   */
  @ParameterizedTest(name = "{0} rows, at most {1}: {2} blocks of {3}, the last {4}")
  @CsvSource({"511, 2048, 1, 511, 511", "1024, 2048, 2, 512, 512", "2048, 2048, 2, 1024, 1024",
      "2600, 2048, 2, 1312, 1288", "5000, 2048, 4, 1264, 1208", "8193, 2048, 6, 1376, 1313",
      "8192, 2048, 4, 2048, 2048"})
  void cuts(int n, int most, int count, int rows, int lastRows) {
    RowBlocks blocks = RowBlocks.of(n, most);
    assertEquals(count, blocks.count());
    assertEquals(rows, blocks.rows(0));
    assertEquals(lastRows, blocks.rows(count - 1));
  }

  @Test
  void aBlockHasAtLeastOneRow() {
    assertThrows(IllegalArgumentException.class, () -> RowBlocks.of(10, 0));
  }
}
