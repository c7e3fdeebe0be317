package io.corpus.encoder.model;

/**
 * How much each head matters to the vector a row is written as (Michel et al. 2019, measured on
 * the pooled vector as an embedder's users see it): for layer l and head h, 1 − cos(pooled,
 * pooled′), pooled′ being the row's pooled vector recomputed with h's context set to zero before
 * l's output projection, in that layer only.
 *
 * <p>The layers below l are run once and reused: the states entering layer l are copied into a
 * batch of H sequences (fewer, where H copies would not fit in a job's batch), sequence h without
 * head h, which runs layers l to L − 1. A row costs
 * Σ_l H · (L − l) + L layer passes over its T tokens, H · (L + 1) / 2 + 1 times its forward
 * pass (43 times for six layers of 12 heads), each in one batch of H sequences.
 */
public final class HeadImportance {
  /** How a sequence's final states become the vector compared: the row's own pooling. */
  @FunctionalInterface
  public interface PooledVector {
    /** The vector of the T states from row {@code firstRow} of {@code tokens} (width E). */
    float[] of(float[] tokens, int firstRow, int length);
  }

  /**
   * A sequence as it entered the encoder, copied before the forward pass overwrote it.
   *
   * @param tokens (T, E) its input rows
   * @param positions (T) their positions
   * @param keys the first tokens its queries attend to ({@link TokenBatch#keys})
   */
  public record Input(float[] tokens, int[] positions, int keys) {
    /** Sequence b of a batch not yet run. */
    public static Input of(TokenBatch batch, int b) {
      int first = batch.firstRow(b);
      int t = batch.length(b);
      int width = batch.width();
      float[] tokens = new float[t * width];
      System.arraycopy(batch.tokens(), first * width, tokens, 0, tokens.length);
      int[] positions = new int[t];
      for (int i = 0; i < t; i++) {
        positions[i] = batch.position(first + i);
      }
      return new Input(tokens, positions, batch.keys(b));
    }

    int length() {
      return positions.length;
    }
  }

  private HeadImportance() {}

  /**
   * (L · H): the importance of layer l's head h at l · H + h, for a sequence whose pooled
   * vector (as {@code pool} makes it from the encoder's output) is {@code pooled}. A batch holds
   * as many of the H copies as fit in {@code batchTokens} tokens (one at least), so the
   * encoder's buffers stay as large as the job's batches make them.
   */
  public static double[] measure(Encoder encoder, Input input, float[] pooled,
      PooledVector pool, int batchTokens) {
    int layers = encoder.weights().layerCount();
    int heads = encoder.settings().heads();
    int width = encoder.weights().width();
    int t = input.length();
    int copies = Math.max(1, Math.min(heads, batchTokens / Math.max(1, t)));
    double[] importance = new double[layers * heads];
    TokenBatch state = batchOf(input, 1, width);
    for (int l = 0; l < layers; l++) {
      Input entering = new Input(java.util.Arrays.copyOf(state.tokens(), t * width),
          input.positions(), input.keys());
      for (int first = 0; first < heads; first += copies) {
        int count = Math.min(copies, heads - first);
        int[] removed = new int[count];
        for (int c = 0; c < count; c++) {
          removed[c] = first + c;
        }
        TokenBatch ablated = batchOf(entering, count, width);
        encoder.layers(ablated, AttentionSink.NONE, l, layers, new HeadAblation(l, removed));
        for (int c = 0; c < count; c++) {
          float[] without = pool.of(ablated.tokens(), ablated.firstRow(c), t);
          importance[l * heads + first + c] = 1 - cosine(pooled, without);
        }
      }
      if (l + 1 < layers) {
        encoder.layers(state, AttentionSink.NONE, l, l + 1, HeadAblation.NONE);
      }
    }
    return importance;
  }

  /** {@code copies} copies of the sequence, one after the other. */
  private static TokenBatch batchOf(Input input, int copies, int width) {
    int t = input.length();
    TokenBatch batch = new TokenBatch(width, copies * t);
    for (int c = 0; c < copies; c++) {
      for (int i = 0; i < t; i++) {
        int at = batch.appendToken(input.positions()[i]);
        System.arraycopy(input.tokens(), i * width, batch.tokens(), at, width);
      }
      int b = batch.endSequence();
      if (input.keys() < t) {
        batch.attendToFirst(b, input.keys());
      }
    }
    return batch;
  }

  /** cos(a, b) in double; two zero vectors are alike (1), a zero and another not (0). */
  static double cosine(float[] a, float[] b) {
    double dot = 0;
    double aa = 0;
    double bb = 0;
    for (int i = 0; i < a.length; i++) {
      dot += (double) a[i] * b[i];
      aa += (double) a[i] * a[i];
      bb += (double) b[i] * b[i];
    }
    if (aa == 0 || bb == 0) {
      return aa == bb ? 1 : 0;
    }
    return dot / Math.sqrt(aa * bb);
  }
}
