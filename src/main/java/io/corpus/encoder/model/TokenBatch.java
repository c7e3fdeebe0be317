package io.corpus.encoder.model;

import java.util.Arrays;

/**
 * B sequences' real tokens stacked into one (N, E) matrix, with each token's position in its
 * sequence. Reused across batches: {@link #clear()} keeps the buffers.
 *
 * <p>Only real tokens are stored; a padded position is skipped, and the positions of the tokens
 * kept say where they stood, so positional encodings, causal and window masks still see the
 * original indices.
 */
public final class TokenBatch {
  private final int width;
  private float[] tokens;      // (N, E)
  private int[] positions;     // (N)
  private int[] offsets;       // (B + 1): sequence b is rows [offsets[b], offsets[b + 1])
  private int[] keys;          // (B): sequence b's queries attend to its first keys[b] rows
  private int tokenCount;
  private int sequenceCount;

  public TokenBatch(int width, int expectedTokens) {
    this.width = width;
    int capacity = Math.max(expectedTokens, 1);
    this.tokens = new float[capacity * width];
    this.positions = new int[capacity];
    this.offsets = new int[17];
    this.keys = new int[16];
  }

  public void clear() {
    tokenCount = 0;
    sequenceCount = 0;
  }

  /** E. */
  public int width() {
    return width;
  }

  /** N. */
  public int tokenCount() {
    return tokenCount;
  }

  /** B. */
  public int sequenceCount() {
    return sequenceCount;
  }

  /** (N, E): the input before {@code Encoder.forward}, the output after it. */
  public float[] tokens() {
    return tokens;
  }

  /** First row of sequence b. */
  public int firstRow(int b) {
    return offsets[b];
  }

  /** T of sequence b (its real tokens). */
  public int length(int b) {
    return offsets[b + 1] - offsets[b];
  }

  /**
   * How many of sequence b's tokens its queries attend to, from its first: all T unless
   * {@link #attendToFirst} said fewer.
   */
  public int keys(int b) {
    return keys[b];
  }

  /**
   * Lets every query of sequence b attend to its first {@code count} tokens only (an attention
   * mask of 0 on the rest, as ColBERT's query expansion masks its padding), while the later
   * tokens are still computed as queries.
   */
  public void attendToFirst(int b, int count) {
    if (count < 1 || count > length(b)) {
      throw new IllegalArgumentException("sequence " + b + " of " + length(b) + " tokens cannot "
          + "attend to its first " + count);
    }
    keys[b] = count;
  }

  /** One more than the largest position of any row: the positions tables must cover. */
  public int positionsCovered() {
    int last = 0;
    for (int r = 0; r < tokenCount(); r++) {
      last = Math.max(last, position(r));
    }
    return last + 1;
  }

  /** Position within its sequence of stacked row r. */
  public int position(int row) {
    return positions[row];
  }

  /**
   * Appends one token at the given position to the sequence being built and returns the offset
   * in {@link #tokens()} where its E values go. Call {@link #tokens()} again after appending: the
   * buffer may have grown.
   */
  public int appendToken(int position) {
    if (tokenCount == positions.length) {
      int capacity = positions.length * 2;
      positions = Arrays.copyOf(positions, capacity);
      tokens = Arrays.copyOf(tokens, capacity * width);
    }
    positions[tokenCount] = position;
    return tokenCount++ * width;
  }

  /** Drops the tokens appended since the last {@link #endSequence()}. */
  public void discardOpenSequence() {
    tokenCount = offsets[sequenceCount];
  }

  /** Closes the sequence whose tokens were appended since the last call; returns its index b. */
  public int endSequence() {
    if (sequenceCount + 2 > offsets.length) {
      offsets = Arrays.copyOf(offsets, offsets.length * 2);
      keys = Arrays.copyOf(keys, offsets.length - 1);
    }
    keys[sequenceCount] = tokenCount - offsets[sequenceCount];
    sequenceCount++;
    offsets[sequenceCount] = tokenCount;
    return sequenceCount - 1;
  }
}
