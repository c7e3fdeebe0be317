package io.corpus.encoder.io;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.corpus.encoder.io.ParquetFooters.RowGroup;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Parquet reader's batch sized by the rows' bytes, from row groups alone. */
class ReaderBatchTest {
  private static final long FLOAT_ROW = 128L * 768 * 4;   // 128 token vectors of width 768

  @Test
  void rowsOfTokenVectorsMakeBatchesOfAboutFourMegabytes() {
    // 256 rows of 128 x 768 floats in one row group: 10 rows of 393 KB under 4 MB
    List<List<RowGroup>> files = List.of(List.of(new RowGroup(0, 256, 256 * FLOAT_ROW)));
    assertEquals(10, ReaderBatch.rows(64, files));
  }

  @Test
  void aRowWiderThanTheBudgetIsReadAlone() {
    List<List<RowGroup>> files = List.of(List.of(new RowGroup(0, 3, 3 * 8192L * 768 * 4)));
    assertEquals(1, ReaderBatch.rows(64, files));
  }

  @Test
  void narrowRowsKeepTheConfiguredBatch() {
    // texts of about 400 bytes, and a configured batch smaller than the budget allows
    List<List<RowGroup>> files = List.of(List.of(new RowGroup(0, 10_000, 4_000_000)));
    assertEquals(64, ReaderBatch.rows(64, files));
    assertEquals(4, ReaderBatch.rows(4, files));
  }

  @Test
  void theWidestRowGroupDecidesAcrossFiles() {
    List<List<RowGroup>> files = List.of(
        List.of(new RowGroup(0, 10_000, 4_000_000)),
        List.of(new RowGroup(0, 100, 100_000), new RowGroup(0, 40, 40 * FLOAT_ROW)));
    assertEquals(10, ReaderBatch.rows(64, files));
  }

  @Test
  void anInputWithoutRowsKeepsTheConfiguredBatch() {
    assertEquals(64, ReaderBatch.rows(64, List.of()));
    assertEquals(64, ReaderBatch.rows(64, List.of(List.of(new RowGroup(0, 0, 0)))));
  }
}
