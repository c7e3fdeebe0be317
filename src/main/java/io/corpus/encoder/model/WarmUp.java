package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Precision;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One forward pass over a small synthetic batch, for a local job to run while Spark starts.
 * Until C2 has compiled them, the element-wise kernels (the Vector API's, a hundred times slower
 * before) and the reduced-precision passes make a task thread's first batch take seconds; in a
 * local job the tasks share the driver's JVM, so the pass moves that cost into the seconds the
 * driver waits for Spark anyway. On the real-text int8 job, three alternating pairs: forward pass
 * 28.1 to 28.9 task-seconds without it, 25.9 to 27.3 with it, the whole process 0.4 s shorter.
 */
public final class WarmUp {
  /** Tokens a synthetic sequence holds. */
  static final int LENGTH = 32;

  /** The precisions whose kernels this JVM has run a pass in. */
  private static final Set<Precision> WARMED = ConcurrentHashMap.newKeySet();

  private WarmUp() {}

  /**
   * {@link #run}, unless this JVM has run a pass in the layers' precision before: an earlier job
   * in the same JVM (a notebook's next call, a test suite's next job) has had its kernels
   * compiled. Returns the tokens it ran, 0 when it ran none.
   */
  public static int once(ModelSettings settings, EncoderWeights weights) {
    return once(settings, weights, WARMED);
  }

  /** {@link #once}, with {@code warmed} the precisions already run, to which it adds. */
  public static int once(ModelSettings settings, EncoderWeights weights,
      Set<Precision> warmed) {
    return warmed.add(weights.precision()) ? run(settings, weights) : 0;
  }

  /**
   * The pass: 96 / layers sequences of {@link #LENGTH} tokens (at least 2), so that a deep model
   * (each layer calls every kernel again) takes no longer than a shallow one. Returns the
   * tokens it ran.
   */
  public static int run(ModelSettings settings, EncoderWeights weights) {
    int sequences = Math.max(2, 96 / Math.max(1, weights.layerCount()));
    int width = weights.width();
    TokenBatch batch = new TokenBatch(width, sequences * LENGTH);
    Random random = new Random(1);
    for (int s = 0; s < sequences; s++) {
      for (int position = 0; position < LENGTH; position++) {
        int at = batch.appendToken(position);
        for (int i = 0; i < width; i++) {
          batch.tokens()[at + i] = (float) random.nextGaussian();
        }
      }
      batch.endSequence();
    }
    new Encoder(settings, weights).forward(batch);
    return batch.tokenCount();
  }
}
