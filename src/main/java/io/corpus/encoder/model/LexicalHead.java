package io.corpus.encoder.model;

import java.util.Arrays;
import java.util.TreeMap;

/**
 * bge-m3's lexical weights, as FlagEmbedding computes them: a weight relu(w · h_t + b) for every
 * token's final state, then per token id the largest of its tokens' weights, ids of the special
 * tokens ({@code cls}, {@code eos}, {@code pad}, {@code unk}) and weights of 0 left out
 * ({@code _process_token_weights}).
 *
 * @param weight w, (E): {@code sparse_linear.weight}
 * @param bias b, (1): {@code sparse_linear.bias}
 * @param specialIds the ids left out
 */
public record LexicalHead(float[] weight, float[] bias, int[] specialIds) implements Head {

  public LexicalHead {
    specialIds = specialIds.clone();
    Arrays.sort(specialIds);
  }

  /**
   * The sparse vector of {@code count} token states of width E from row {@code firstRow} of
   * {@code states}, whose token ids are {@code ids}.
   */
  public SpladeHead.Sparse weights(float[] states, int firstRow, int count, int[] ids) {
    int width = weight.length;
    TreeMap<Integer, Float> largest = new TreeMap<>();
    for (int t = 0; t < count; t++) {
      if (Arrays.binarySearch(specialIds, ids[t]) >= 0) {
        continue;
      }
      float w = bias[0];
      int row = (firstRow + t) * width;
      for (int e = 0; e < width; e++) {
        w += weight[e] * states[row + e];
      }
      if (w > 0) {
        largest.merge(ids[t], w, Math::max);
      }
    }
    int[] indices = new int[largest.size()];
    float[] values = new float[largest.size()];
    int i = 0;
    for (var entry : largest.entrySet()) {
      indices[i] = entry.getKey();
      values[i++] = entry.getValue();
    }
    return new SpladeHead.Sparse(indices, values);
  }
}
