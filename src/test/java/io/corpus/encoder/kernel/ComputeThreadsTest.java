package io.corpus.encoder.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/** Tasks share a process's cores: a task alone borrows the idle ones, busy slots lend none. */
@Isolated
class ComputeThreadsTest {
  /** Runs items that each wait until {@code together} items run at once, or time out. */
  private static Set<Integer> runTogether(ComputeThreads.Task task, int items, int together) {
    CyclicBarrier barrier = new CyclicBarrier(together);
    Set<Integer> lanes = ConcurrentHashMap.newKeySet();
    task.run(items, (item, lane) -> {
      lanes.add(lane);
      try {
        barrier.await(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IllegalStateException("item " + item + " ran without the others beside it", e);
      }
    });
    return lanes;
  }

  @Test
  void aTaskAloneSpreadsOverTheIdleCores() {
    ComputeThreads threads = new ComputeThreads(3);
    try (ComputeThreads.Task task = threads.join(1)) {
      assertEquals(2, threads.idle());
      assertEquals(Set.of(0, 1, 2), runTogether(task, 3, 3));
      assertEquals(2, threads.idle(), "the borrowed cores are given back");
    }
    assertEquals(3, threads.idle(), "closing the task gives its own core back");
  }

  @Test
  void whileEverySlotIsBusyATaskComputesAlone() {
    ComputeThreads threads = new ComputeThreads(2);
    try (ComputeThreads.Task first = threads.join(1); ComputeThreads.Task second = threads.join(1)) {
      Set<Integer> lanes = ConcurrentHashMap.newKeySet();
      Set<Thread> ran = ConcurrentHashMap.newKeySet();
      first.run(50, (item, lane) -> {
        lanes.add(lane);
        ran.add(Thread.currentThread());
      });
      assertEquals(Set.of(0), lanes);
      assertEquals(Set.of(Thread.currentThread()), ran);
      second.close();
      assertEquals(Set.of(0, 1), runTogether(first, 2, 2), "the slot freed is borrowed");
    }
  }

  @Test
  void aTaskGivenTwoCpusUsesBothEvenWithNoneIdle() {
    ComputeThreads threads = new ComputeThreads(2);
    try (ComputeThreads.Task task = threads.join(2)) {
      assertEquals(0, threads.idle());
      assertEquals(Set.of(0, 1), runTogether(task, 2, 2));
    }
  }

  @Test
  void aFailingItemIsThrownOnceEveryLaneStoppedAndTheCoresComeBack() {
    ComputeThreads threads = new ComputeThreads(3);
    try (ComputeThreads.Task task = threads.join(1)) {
      IllegalArgumentException failure = new IllegalArgumentException("item 7");
      IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class,
          () -> task.run(100, (item, lane) -> {
            if (item == 7) {
              throw failure;
            }
          }));
      assertSame(failure, thrown);
      assertEquals(2, threads.idle());
    }
  }

  @Test
  void theSerialTaskRunsEveryItemInOrderOnTheCaller() {
    StringBuilder order = new StringBuilder();
    ComputeThreads.SERIAL.run(4, (item, lane) -> order.append(item).append(lane));
    assertEquals("00102030", order.toString());
    assertEquals(1, ComputeThreads.SERIAL.lanes());
  }
}
