package io.corpus.encoder.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link HeadAttention#full} on every head of a short sequence at once (one softmax pass) against
 * the same head by head: the same context, bit for bit, for lengths that fill
 * whole vectors, leave tails, or are a single token, with and without causal and window masks.
 */
class AllHeadsAttentionTest {
  private static final int[] LENGTHS = {1, 5, 16, 21, 33, 64, 2};

  @ParameterizedTest
  @CsvSource({"12,384,false,0", "4,16,false,0", "4,16,true,0", "3,24,false,3", "2,16,true,5"})
  void allHeadsEqualsHeadByHead(int heads, int width, boolean causal, int window) {
    Random random = new Random(heads * 1000 + width + window);
    int headWidth = width / heads;
    TokenBatch batch = new TokenBatch(width, 64);
    for (int t : LENGTHS) {
      for (int p = 0; p < t; p++) {
        batch.appendToken(p);
      }
      batch.endSequence();
    }
    int n = batch.tokenCount();
    float[] qkv = new float[n * 3 * width];
    for (int i = 0; i < qkv.length; i++) {
      qkv[i] = (float) random.nextGaussian();
    }
    AttentionMask mask = new AttentionMask(causal, window);
    float[] byHead = new float[n * width];
    float[] together = new float[n * width];
    HeadAttention one = new HeadAttention(heads, headWidth, 256);
    HeadAttention all = new HeadAttention(heads, headWidth, 256);
    for (int b = 0; b < batch.sequenceCount(); b++) {
      int first = batch.firstRow(b);
      int t = batch.length(b);
      for (int h = 0; h < heads; h++) {
        one.full(batch, first, t, t, h, 1, mask, qkv, byHead);
      }
      all.full(batch, first, t, t, 0, heads, mask, qkv, together);
    }
    assertArrayEquals(byHead, together);
  }
}
