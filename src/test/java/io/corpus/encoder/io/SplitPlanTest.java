package io.corpus.encoder.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.io.ParquetFooters.RowGroup;
import io.corpus.encoder.io.SplitPlan.FileRange;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The spreading decision from row-group positions and reader splits, without Spark. */
class SplitPlanTest {

  @Test
  void oneRowGroupCutIntoManyRangesIsOneBusySplitAndIsShuffled() {
    // One 8 MB file in 8 byte ranges; its one row group's midpoint falls in range 3.
    Map<String, List<RowGroup>> groups = Map.of("a", List.of(new RowGroup(3_500_000, 256, 90)));
    List<List<FileRange>> splits = new java.util.ArrayList<>();
    for (int i = 0; i < 8; i++) {
      splits.add(List.of(new FileRange("a", i * 1_000_000L, 1_000_000L)));
    }
    SplitPlan plan = SplitPlan.of(splits, groups, 2);
    assertEquals(8, plan.splits());
    assertEquals(1, plan.busySplits());
    assertEquals(256, plan.rows());
    assertEquals(0.5, plan.balance(), 1e-9);
    assertEquals(SplitPlan.Spread.STRIDED_READS, plan.spread(), plan.reason());
  }

  @Test
  void rowGroupBelongsToTheRangeHoldingItsMidpointOnly() {
    Map<String, List<RowGroup>> groups = Map.of("a", List.of(new RowGroup(100, 10, 50),
        new RowGroup(300, 20, 50)));
    SplitPlan plan = SplitPlan.of(List.of(List.of(new FileRange("a", 0, 200)),
        List.of(new FileRange("a", 200, 200))), groups, 2);
    assertEquals(2, plan.busySplits());
    assertEquals(30, plan.rows());
    assertEquals(1.0, plan.balance(), 1e-9);
    assertEquals(SplitPlan.Spread.AS_IT_LIES, plan.spread(), plan.reason());
  }

  @Test
  void manyEvenSplitsAreReadAsTheyLie() {
    long[] work = {10, 10, 10, 10, 10, 10, 10, 10};
    SplitPlan plan = SplitPlan.decide(work, new long[] {4, 4, 4, 4, 4, 4, 4, 4}, 8, 2);
    assertEquals(SplitPlan.Spread.AS_IT_LIES, plan.spread(), plan.reason());
    assertEquals(1.0, plan.balance(), 1e-9);
  }

  @Test
  void piecesComeInMultiplesOfTheSlotsSoThatNoneIdlesAtTheEnd() {
    SplitPlan oneGroup = SplitPlan.decide(new long[] {100, 0}, new long[] {1000, 0}, 1, 2);
    assertEquals(SplitPlan.Spread.STRIDED_READS, oneGroup.spread(), oneGroup.reason());
    assertEquals(8, ParquetInput.pieceCount(oneGroup, 2, 7), "7 equal pieces take as long as 8");
    assertEquals(2, ParquetInput.pieceCount(oneGroup, 2, 1), "one reader per slot at least");
    SplitPlan three = SplitPlan.decide(new long[] {10, 10, 10}, new long[] {5, 5, 5}, 3, 3);
    assertEquals(SplitPlan.Spread.AS_IT_LIES, three.spread(), three.reason());
    assertEquals(3, ParquetInput.pieceCount(three, 3, 2), "the splits as they are");
    assertEquals(9, ParquetInput.pieceCount(three, 3, 7), "three readers of each");
    assertEquals(12, ParquetInput.pieceCount(three, 2, 7), "four readers of each, 12 on 2 slots");
  }

  @Test
  void unevenRowGroupsAreShuffledWhenTheLargestHoldsUpOneSlot() {
    // 70 % of the work in one split: the other slot idles most of the time.
    SplitPlan plan = SplitPlan.decide(new long[] {70, 20, 10}, new long[] {70, 20, 10}, 3, 2);
    assertEquals(50.0 / 70.0, plan.balance(), 1e-9);
    assertEquals(SplitPlan.Spread.STRIDED_READS, plan.spread(), plan.reason());
  }

  @Test
  void slightlyUnevenSplitsAreNotWorthAShuffle() {
    SplitPlan plan = SplitPlan.decide(new long[] {30, 25, 25, 20}, new long[] {3, 3, 3, 3}, 4, 2);
    assertTrue(plan.balance() >= SplitPlan.MIN_BALANCE, plan.reason());
    assertEquals(SplitPlan.Spread.AS_IT_LIES, plan.spread(), plan.reason());
  }

  @Test
  void aSingleRowCannotBeSpread() {
    SplitPlan plan = SplitPlan.decide(new long[] {0, 90, 0}, new long[] {0, 1, 0}, 1, 2);
    assertEquals(SplitPlan.Spread.AS_IT_LIES, plan.spread(), plan.reason());
    assertTrue(plan.reason().contains("nothing to spread"), plan.reason());
  }

  @Test
  void emptyInputNeedsNoShuffle() {
    SplitPlan plan = SplitPlan.decide(new long[] {0}, new long[] {0}, 0, 2);
    assertEquals(SplitPlan.Spread.AS_IT_LIES, plan.spread());
    assertEquals(0, plan.rows());
  }
}
