package io.corpus.encoder.text;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.function.Supplier;

/**
 * Tokenizers a JVM's tasks have finished with, kept open for the next task that reads the same
 * file the same way: an executor runs a job's pieces one after another, and loading a large
 * {@code tokenizer.json} is not free (Qwen3's 6 MB took 0.4 CPU-seconds a piece, 9 of a 240 s
 * bfloat16 decoder job cut into 22 pieces). A tokenizer is used by one task at a time: {@link
 * #take} hands an idle one out or makes one, {@link #give} takes it back. At most {@link
 * #MOST_IDLE} wait, the longest idle closed first, so a JVM that reads many folders (the tests)
 * holds no more native memory than a few tasks would.
 */
public final class IdleTokenizers {
  /** How many idle tokenizers a JVM keeps open. */
  static final int MOST_IDLE = 4;

  private record Idle(String key, TextTokenizer tokenizer) {}

  private static final Deque<Idle> IDLE = new ArrayDeque<>();   // the latest given first

  private IdleTokenizers() {}

  /**
   * An idle tokenizer given back under {@code key}, else a new one from {@code make}. The key
   * names everything the tokenizer was made from: the file's SHA-256 and the options.
   */
  public static TextTokenizer take(String key, Supplier<TextTokenizer> make) {
    synchronized (IDLE) {
      for (Iterator<Idle> it = IDLE.iterator(); it.hasNext(); ) {
        Idle idle = it.next();
        if (idle.key().equals(key)) {
          it.remove();
          return idle.tokenizer();
        }
      }
    }
    return make.get();
  }

  /** Keeps {@code tokenizer}, made under {@code key}, for the next {@link #take} of that key. */
  public static void give(String key, TextTokenizer tokenizer) {
    TextTokenizer closed = null;
    synchronized (IDLE) {
      IDLE.addFirst(new Idle(key, tokenizer));
      if (IDLE.size() > MOST_IDLE) {
        closed = IDLE.removeLast().tokenizer();
      }
    }
    if (closed != null) {
      closed.close();
    }
  }

  /** How many wait: for tests. */
  static int idle() {
    synchronized (IDLE) {
      return IDLE.size();
    }
  }
}
