package io.corpus.encoder.model;

import java.io.Serializable;

/**
 * The heads' shape beyond their number H: either the width split evenly ({@link #SPLIT}, what a
 * weights file has, whose E only its weights tell) or a shape its family read from config.json,
 * every figure stated ({@link Shaped}). No figure stands for "the default".
 */
public sealed interface AttentionHeads extends Serializable
    permits AttentionHeads.Split, AttentionHeads.Shaped {

  /** H heads of E / H values each, as many KV heads, scores scaled by 1/√D: most encoders. */
  AttentionHeads SPLIT = new Split();

  /** H heads of E / H values each, as many KV heads, scores scaled by 1/√D. */
  record Split() implements AttentionHeads {}

  /**
   * A shape a family read from config.json.
   *
   * @param kvHeads Hkv, the key and value heads (grouped-query attention: query head h reads KV
   *     head h / (H / Hkv)); H for plain multi-head attention
   * @param headWidth D
   * @param scoreScale what q·k is multiplied by
   */
  record Shaped(int kvHeads, int headWidth, double scoreScale) implements AttentionHeads {
    public Shaped {
      if (kvHeads < 1 || headWidth < 1 || !(scoreScale > 0) || Double.isInfinite(scoreScale)) {
        throw new IllegalArgumentException("KV heads, head width and score scale are positive, "
            + "got " + kvHeads + ", " + headWidth + ", " + scoreScale);
      }
    }
  }

  /** {@code kvHeads} KV heads of {@code headWidth} values, scores scaled by 1/√D. */
  static Shaped grouped(int kvHeads, int headWidth) {
    return new Shaped(kvHeads, headWidth, 1.0 / Math.sqrt(headWidth));
  }
}
