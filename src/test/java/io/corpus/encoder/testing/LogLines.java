package io.corpus.encoder.testing;

import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * The messages the encoder's loggers write at a level or above, on the thread that opened it,
 * while it is open: what a user reads in the log of a job run on that thread, for tests of
 * warnings (not those of test classes running beside it).
 */
public final class LogLines extends AbstractAppender implements AutoCloseable {
  private final List<String> lines = new ArrayList<>();
  private final LoggerConfig logger;
  private final long thread = Thread.currentThread().getId();

  private LogLines(Level level, LoggerConfig logger) {
    super("test-log-lines-" + System.nanoTime(), null, null, true, Property.EMPTY_ARRAY);
    this.logger = logger;
    start();
    logger.addAppender(this, level, null);
  }

  /** Collects what {@code io.corpus.encoder}'s loggers write at {@code level} and above. */
  public static LogLines of(Level level) {
    LoggerContext context = (LoggerContext) LogManager.getContext(false);
    Configuration config = context.getConfiguration();
    LogLines lines = new LogLines(level, config.getLoggerConfig("io.corpus.encoder"));
    context.updateLoggers();
    return lines;
  }

  @Override
  public synchronized void append(LogEvent event) {
    if (event.getThreadId() != thread) {
      return;
    }
    lines.add(event.getMessage().getFormattedMessage());
  }

  /** The messages so far, in order. */
  public synchronized List<String> lines() {
    return List.copyOf(lines);
  }

  @Override
  public void close() {
    logger.removeAppender(getName());
    stop();
    ((LoggerContext) LogManager.getContext(false)).updateLoggers();
  }
}
