package io.corpus.encoder.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.corpus.encoder.testing.SparkTestSession;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.function.ForeachFunction;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * A job's task seconds are its own tasks': a Spark job another thread of the application runs at
 * the same time (a notebook's query, another encode job) adds nothing.
 */
class JobPhasesTest {
  /** Runs two tasks on the session that each sleep {@code millis}. */
  private static void sleepingTasks(SparkSession spark, long millis) {
    spark.range(0, 2, 1, 2).foreach((ForeachFunction<Long>) x -> Thread.sleep(millis));
  }

  @Test
  void tasksOfAJobBesideItAreNotCounted() throws Exception {
    SparkSession spark = SparkTestSession.get();
    SparkContext context = spark.sparkContext();
    // once before measuring: a JVM's first such tasks also load and compile what they run
    sleepingTasks(spark, 0);
    // the other thread exists before the job marks its own (as a notebook's would)
    ExecutorService other = Executors.newSingleThreadExecutor();
    CountDownLatch go = new CountDownLatch(1);
    Future<?> beside = other.submit(() -> {
      go.await();
      sleepingTasks(spark, 2000);
      return null;
    });
    JobPhases phases = new JobPhases(System.nanoTime());
    phases.listenTo(context);
    try {
      go.countDown();
      sleepingTasks(spark, 150);
      beside.get();
      context.listenerBus().waitUntilEmpty();
    } finally {
      phases.stopListening(context);
      other.shutdown();
    }
    double seconds = phases.taskSeconds();
    // its own two tasks: 0.3 s and a little (1.2 s once on a machine busy with a build beside
    // the suite); with the other job's, 4.3 s and more
    assertTrue(seconds >= 0.3 && seconds < 2.0, seconds + " task seconds");
  }
}
