package io.corpus.encoder.io;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/** A row's weight: its sequence's estimated tokens, cut to the window, and their attention. */
class RowWeightTest {
  @Test
  void aTextsPiecesAreItsWordsMarksAndIdeographs() {
    assertEquals(0, RowWeight.pieces(" \t\n"));
    // Hello , world ! 東 京 abc123 . . . café
    assertEquals(11, RowWeight.pieces("Hello, world! 東京 abc123... café"));
  }

  @Test
  void weightGrowsWithTheTokensAndTheTokensEachAttendsTo() {
    RowWeight truncated = new RowWeight("s", 8, false, 4);
    RowWeight chunked = new RowWeight("s", 8, true, 4);
    InternalRow ids = new GenericInternalRow(new Object[] {
        new GenericArrayData(new Object[20])});
    // 8 tokens kept, each attending to 8: 8 · (1 + 8 / 4)
    assertEquals(24.0, truncated.of(ids, 0, DataTypes.createArrayType(DataTypes.IntegerType)));
    // 20 tokens in windows of 8: 20 · (1 + 8 / 4)
    assertEquals(60.0, chunked.of(ids, 0, DataTypes.createArrayType(DataTypes.IntegerType)));
    InternalRow text = new GenericInternalRow(new Object[] {UTF8String.fromString("a b c")});
    // 3 words and 2 special tokens, each attending to 5
    assertEquals(5 * (1 + 5 / 4.0), chunked.of(text, 0, DataTypes.StringType));
    assertEquals(1.0, RowWeight.EVEN.of(text, -1, null));
  }
}
