package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * One encoder layer's parameters, PyTorch layout (out, in).
 *
 * @param inProjWeight (3E, E): rows q, then k, then v
 * @param inProjBias (3E)
 * @param outProjWeight (E, E)
 * @param outProjBias (E)
 * @param ffnInWeight (F, E), {@code linear1}
 * @param ffnInBias (F)
 * @param ffnOutWeight (E, F), {@code linear2}
 * @param ffnOutBias (E)
 * @param norm1Gamma (E), the norm around attention
 * @param norm1Beta (E)
 * @param norm2Gamma (E), the norm around the feed-forward
 * @param norm2Beta (E)
 */
public record LayerWeights(
    float[] inProjWeight, float[] inProjBias,
    float[] outProjWeight, float[] outProjBias,
    float[] ffnInWeight, float[] ffnInBias,
    float[] ffnOutWeight, float[] ffnOutBias,
    float[] norm1Gamma, float[] norm1Beta,
    float[] norm2Gamma, float[] norm2Beta) implements Serializable {

  /** E, the model width. */
  public int width() {
    return outProjBias.length;
  }

  /** F, the feed-forward width. */
  public int ffnWidth() {
    return ffnInBias.length;
  }
}
