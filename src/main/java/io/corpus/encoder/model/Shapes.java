package io.corpus.encoder.model;

import io.corpus.encoder.kernel.Matrix;

/**
 * The shape table of an encoder, worked out once from its spec and weights: the widths of every
 * product and work buffer of its layers. The encoder checks its projections and sizes its
 * buffers by it, and the job's memory estimate ({@code --check}) and piece-size estimate (resume)
 * read the same figures, so the three cannot part.
 *
 * @param layers L
 * @param width E, the residual stream
 * @param heads H, the query heads
 * @param kvHeads Hkv, the key and value heads (H for plain multi-head attention)
 * @param headWidth D
 * @param ffnWidth F
 * @param gated whether a layer's feed-forward is gated (a second (F, E) product, a gate buffer)
 * @param postNorms whether a layer norms its sublayers' outputs before adding them (sandwich
 *     norms: a buffer)
 * @param ffnBlock the most rows of the feed-forward done at a time ({@link Matrix#blockRows};
 *     the blocks are cut by {@link io.corpus.encoder.kernel.RowBlocks})
 */
public record Shapes(int layers, int width, int heads, int kvHeads, int headWidth, int ffnWidth,
    boolean gated, boolean postNorms, int ffnBlock) {

  public static Shapes of(ModelSettings settings, EncoderWeights weights) {
    int width = weights.width();
    return new Shapes(weights.layerCount(), width, settings.heads(), settings.kvHeads(),
        settings.headWidth(width), weights.ffnWidth(),
        settings.architecture().gated(),
        settings.architecture().norms().placement() == Norms.Placement.SANDWICH,
        weights.layers().stream().mapToInt(l -> l.feedForward().blockRows()).min()
            .orElse(Matrix.BLOCK_ROWS));
  }

  /** H·D: the width of the heads' context, the output projection's input. */
  public int inner() {
    return heads * headWidth;
  }

  /** (H + 2·Hkv)·D: the fused query, key and value projection's output. */
  public int qkvWidth() {
    return fused().width();
  }

  /** Where each head lies in a row of the fused query, key and value projection's output. */
  FusedHeads fused() {
    return new FusedHeads(heads, kvHeads, headWidth);
  }

  /** Rows of the feed-forward's hidden buffer for a batch of {@code rows} tokens. */
  public int ffnRows(int rows) {
    return Math.min(rows, ffnBlock);
  }

  /** Floats of the fused q, k, v buffer for {@code rows} tokens. */
  public long qkvFloats(int rows) {
    return (long) rows * qkvWidth();
  }

  /** Floats of the heads' context buffer. */
  public long contextFloats(int rows) {
    return (long) rows * inner();
  }

  /** Floats of a buffer of the residual stream's width (scratch, a sublayer's output). */
  public long streamFloats(int rows) {
    return (long) rows * width;
  }

  /** Floats of the feed-forward's hidden buffer (and of its gate's, when gated). */
  public long hiddenFloats(int rows) {
    return (long) ffnRows(rows) * ffnWidth;
  }

  /**
   * Every work buffer a task's encoder holds for a batch of {@code rows} tokens, in floats: q, k
   * and v; the context; scratch; a sublayer's output with post norms; the feed-forward's hidden
   * block, and its gate when gated. (The batch's own (N, E) tokens are the caller's.)
   */
  public long bufferFloats(int rows) {
    return qkvFloats(rows) + contextFloats(rows) + streamFloats(rows)
        + (postNorms ? streamFloats(rows) : 0) + hiddenFloats(rows) * (gated ? 2 : 1);
  }

  /**
   * Multiply-adds of one token through every layer when it attends to {@code keys} keys: the
   * q, k, v projection (E·(H + 2·Hkv)·D), the output projection (H·D·E), the feed-forward
   * (E·F, twice when gated, and F·E), and the scores and their weighted sum (2·H·D·keys).
   */
  public double multiplyAddsPerToken(double keys) {
    double projections = (double) width * qkvWidth() + (double) inner() * width;
    double feedForward = (double) width * ffnWidth * (gated ? 3 : 2);
    return layers * (projections + feedForward + 2.0 * inner() * keys);
  }
}
