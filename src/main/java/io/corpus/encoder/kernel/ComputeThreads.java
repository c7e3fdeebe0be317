package io.corpus.encoder.kernel;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The cores of one process (a Spark executor), shared by the tasks that compute in it. A task
 * {@link #join}s holding the cores it was given (Spark's {@code spark.task.cpus}, usually one) and
 * computes on its own thread. A parallel section ({@link Task#run}) also borrows, for as long as
 * it lasts, the cores no task holds: while every task slot is busy a task computes alone, as it
 * would without this class (no oversubscription); when it runs beside idle slots (the end of a
 * job, a corpus with a few long documents, one document alone) its items spread over them.
 *
 * <p>A section's items are claimed in order from one counter by whichever thread is free; an
 * item's arithmetic is its own, so what a section computes never depends on how many threads
 * ran it or which. Sections are short (one product, one layer's attention), so a task that
 * starts while a core is lent gets it back within one section.
 */
public final class ComputeThreads {
  /** A task with no cores to borrow: every section runs on the caller's thread. */
  public static final Task SERIAL = new Task(null, 1);

  private static ComputeThreads shared;

  private final int cores;
  private final AtomicInteger idle;        // cores no task holds and no section has borrowed
  private final ExecutorService helpers;   // daemon threads, at most cores − 1 busy at once

  /** A set of {@code cores} cores with no task holding any; tests make their own. */
  public ComputeThreads(int cores) {
    if (cores < 1) {
      throw new IllegalArgumentException("a process has at least one core, got " + cores);
    }
    this.cores = cores;
    this.idle = new AtomicInteger(cores);
    AtomicInteger made = new AtomicInteger();
    this.helpers = Executors.newCachedThreadPool(work -> {
      Thread thread = new Thread(work, "encoder-compute-" + made.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
  }

  /** The process's one set of {@code cores} cores (made anew if asked with another count). */
  public static synchronized ComputeThreads shared(int cores) {
    if (shared == null || shared.cores != cores) {
      shared = new ComputeThreads(cores);
    }
    return shared;
  }

  public int cores() {
    return cores;
  }

  /** Cores no task holds and no section has borrowed now. */
  public int idle() {
    return Math.max(0, idle.get());
  }

  /** A task that holds {@code own} cores until it is closed. */
  public Task join(int own) {
    if (own < 1) {
      throw new IllegalArgumentException("a task holds at least one core, got " + own);
    }
    idle.addAndGet(-own);
    return new Task(this, own);
  }

  /** Takes up to {@code wanted} idle cores; gives how many. */
  private int borrow(int wanted) {
    while (wanted > 0) {
      int free = idle.get();
      int taken = Math.min(wanted, free);
      if (taken <= 0) {
        return 0;
      }
      if (idle.compareAndSet(free, free - taken)) {
        return taken;
      }
    }
    return 0;
  }

  private void giveBack(int borrowed) {
    idle.addAndGet(borrowed);
  }

  /** What a section does with item {@code item} on lane {@code lane} (0 is the caller's). */
  @FunctionalInterface
  public interface Work {
    void run(int item, int lane);
  }

  /** One task's share: its own cores, and what it borrows while a section runs. */
  public static final class Task implements AutoCloseable {
    private final ComputeThreads threads;   // null: serial
    private final int own;
    private final AtomicInteger closed = new AtomicInteger();

    private Task(ComputeThreads threads, int own) {
      this.threads = threads;
      this.own = own;
    }

    /** The most lanes a section may have: a lane's index is below this. */
    public int lanes() {
      return threads == null ? 1 : Math.max(own, threads.cores);
    }

    /**
     * Runs items [0, items) of {@code work}, on this thread and on the helpers this task may use:
     * its own cores beyond the first, and the idle ones borrowed until the section ends. Each
     * lane runs one item at a time; the first failure is thrown here once every lane stopped.
     */
    public void run(int items, Work work) {
      int wanted = items - 1;
      int mine = threads == null ? 0 : Math.min(wanted, own - 1);
      int borrowed = threads == null ? 0 : threads.borrow(wanted - mine);
      int helpers = mine + borrowed;
      if (helpers <= 0) {
        for (int i = 0; i < items; i++) {
          work.run(i, 0);
        }
        return;
      }
      AtomicInteger next = new AtomicInteger();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      CountDownLatch done = new CountDownLatch(helpers);
      try {
        for (int lane = 1; lane <= helpers; lane++) {
          int helperLane = lane;
          threads.helpers.execute(() -> {
            try {
              drain(items, work, helperLane, next, failure);
            } finally {
              done.countDown();
            }
          });
        }
        drain(items, work, 0, next, failure);
      } finally {
        next.set(items);                            // stops the helpers after their item
        awaitUninterruptibly(done);
        threads.giveBack(borrowed);
      }
      rethrow(failure.get());
    }

    private static void drain(int items, Work work, int lane, AtomicInteger next,
        AtomicReference<Throwable> failure) {
      try {
        for (int i = next.getAndIncrement(); i < items; i = next.getAndIncrement()) {
          work.run(i, lane);
        }
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
        next.set(items);
      }
    }

    /** The helpers write into the caller's buffers: it waits for them even when interrupted. */
    private static void awaitUninterruptibly(CountDownLatch done) {
      boolean interrupted = false;
      while (true) {
        try {
          done.await();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }

    private static void rethrow(Throwable failure) {
      if (failure == null) {
        return;
      }
      if (failure instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (failure instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(failure);
    }

    /** Gives the task's cores back; once, however often it is called. */
    @Override
    public void close() {
      if (threads != null && closed.compareAndSet(0, 1)) {
        threads.giveBack(own);
      }
    }
  }
}
