package io.corpus.encoder.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Driver work that waits on Spark jobs runs on a daemon thread of its own, never on a pool's:
 * on Java 25 the common pool (CompletableFuture's default) has one thread on 2 cores, and
 * Hadoop's local reads complete there.
 */
class OwnThreadTest {
  @Test
  void eachTaskRunsOnANewDaemonThreadOfThatName() throws Exception {
    Thread first = CompletableFuture.supplyAsync(Thread::currentThread,
        OwnThread.named("corpus-map-pca")).get(10, TimeUnit.SECONDS);
    Thread second = CompletableFuture.supplyAsync(Thread::currentThread,
        OwnThread.named("corpus-map-pca")).get(10, TimeUnit.SECONDS);
    assertEquals("corpus-map-pca", first.getName());
    assertTrue(first.isDaemon(), "a daemon: the driver may exit while it waits");
    assertFalse(first instanceof ForkJoinWorkerThread, first.getName());
    assertFalse(first == second, "a thread per task");
  }

  @Test
  void aTaskThatWaitsLeavesTheCommonPoolFree() throws Exception {
    CompletableFuture<Void> release = new CompletableFuture<>();
    CompletableFuture<Void> waiting = CompletableFuture.runAsync(release::join,
        OwnThread.named("waits"));
    // while it waits, work on the common pool still runs (as Hadoop's read completions must)
    assertEquals("ran", CompletableFuture.supplyAsync(() -> "ran").get(10, TimeUnit.SECONDS));
    release.complete(null);
    waiting.get(10, TimeUnit.SECONDS);
  }
}
