package io.corpus.encoder.model;

import io.corpus.encoder.kernel.RowMajorBlas;
import java.util.Arrays;

/**
 * Attention rollout of one sequence (Abnar and Zuidema 2020): per layer l, Â_l = ½ A_l + ½ I with
 * A_l the mean of the layer's heads, rows renormalized; R = Â_L ⋯ Â_1 (T, T), row = query: how
 * much each output token draws on each input token through the residual stream.
 *
 * <p>Fed one head at a time, layer after layer; {@link #endLayer} folds the layer in.
 */
public final class Rollout {
  private final int t;
  private final float[] layerSum;   // (T, T) sum of the current layer's heads
  private float[] product;          // (T, T) Â_l ⋯ Â_1 so far, once a layer has ended
  private float[] spare;            // (T, T) the next product
  private int layers;               // the layers ended so far

  public Rollout(int t) {
    this.t = t;
    this.layerSum = new float[t * t];
  }

  /** Adds one head's (T, T) weights at {@code weights[offset]} to the current layer. */
  public void addHead(float[] weights, int offset) {
    for (int i = 0; i < t * t; i++) {
      layerSum[i] += weights[offset + i];
    }
  }

  /** Ends the current layer, whose {@code heads} heads were added: R := Â_l · R. */
  public void endLayer(int heads) {
    float half = 0.5f / heads;
    for (int i = 0; i < t; i++) {
      int row = i * t;
      float sum = 0f;
      for (int j = 0; j < t; j++) {
        float a = layerSum[row + j] * half + (i == j ? 0.5f : 0f);
        layerSum[row + j] = a;
        sum += a;
      }
      for (int j = 0; j < t; j++) {
        layerSum[row + j] /= sum;
      }
    }
    if (layers++ == 0) {
      product = layerSum.clone();
      spare = new float[t * t];
    } else {
      RowMajorBlas.gemm(false, false, t, t, t, 1f, layerSum, 0, t, product, 0, t, 0f, spare, 0,
          t);                                                                 // (T, T)
      float[] done = product;
      product = spare;
      spare = done;
    }
    Arrays.fill(layerSum, 0f);
  }

  /** R (T, T) after the layers ended so far; the identity before any. */
  public float[] result() {
    if (layers > 0) {
      return product;
    }
    float[] identity = new float[t * t];
    for (int i = 0; i < t; i++) {
      identity[i * t + i] = 1f;
    }
    return identity;
  }
}
