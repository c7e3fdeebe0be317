package io.corpus.encoder.common;

import java.util.Properties;
import org.apache.spark.SparkContext;

/**
 * Marks the Spark jobs a thread submits, through its local properties, so that a listener can
 * tell them from the jobs of other threads on the same context.
 */
public final class ThreadMark {
  private ThreadMark() {}

  /**
   * Marks with {@code key = value} the Spark jobs this thread submits from now on, and those of
   * the threads it starts from now on; returns the thread's local properties as they were, for
   * {@code context.setLocalProperties} to give back. The mark goes into a new set: Spark's
   * {@code setLocalProperty} would write into the set that threads started earlier from this
   * one read through (Spark hands a new thread its parent's set as defaults, not a copy), and
   * mark their jobs too. (The accessors for the whole set are Spark's {@code private[spark]}
   * ones, public to Java.)
   */
  public static Properties mark(SparkContext context, String key, String value) {
    Properties before = context.getLocalProperties();
    Properties marked = new Properties();
    for (String name : before.stringPropertyNames()) {
      marked.setProperty(name, before.getProperty(name));
    }
    marked.setProperty(key, value);
    context.setLocalProperties(marked);
    return before;
  }
}
