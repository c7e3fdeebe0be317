package io.corpus.encoder.model;

import io.corpus.encoder.kernel.RmsNorm;

/**
 * The encoder written as plainly as the math, one sequence at a time, in double, with no BLAS and
 * no batching: padded positions stay in place and are masked with negative infinity. Slow; it
 * exists so that tests can hold {@link Encoder} against an independent implementation.
 */
public final class ReferenceEncoder {
  private final ModelSettings settings;
  private final Architecture architecture;   // settings' own
  private final EncoderWeights weights;
  private final int width;

  /**
   * Output of one sequence: embeddings (T, E) with zero rows at padding; maps [L][H][T][T];
   * value norms [L][H][T], ‖(x_j W_V^h + b_V^h) W_O^h‖ of each token j through head h.
   */
  public record Result(double[][] embeddings, double[][][][] attention, double[][][] valueNorms) {}

  private int ablatedLayer = -1;   // the layer and head whose context is zeroed, or -1
  private int ablatedHead = -1;

  public ReferenceEncoder(ModelSettings settings, EncoderWeights weights) {
    this.settings = settings;
    this.architecture = settings.architecture();
    this.weights = weights;
    this.width = weights.width();
  }

  /** Encodes x (T, E); {@code valid[t]} is false at padding (null: every token is real). */
  public Result encode(float[][] input, boolean[] valid) {
    int t = input.length;
    boolean[] real = valid != null ? valid : allTrue(t);
    double[][][][] maps = new double[weights.layerCount()][][][];
    double[][][] norms = new double[weights.layerCount()][][];
    double[][] x = layers(embedded(input), real, 0, weights.layerCount(), maps, norms);
    for (int i = 0; i < t; i++) {
      if (!real[i]) {
        x[i] = new double[width];
      }
    }
    return new Result(x, maps, norms);
  }

  /**
   * Each head's importance to a sequence's vector (every token real), layer l's head h at
   * l · H + h: 1 − cos(pool(output), pool(output with h's context zeroed in layer l only)),
   * each output run through every layer: the layers below l, which the zeroing does not reach,
   * once for each l (the same values as run again for each head).
   */
  public double[] importance(float[][] input,
      java.util.function.Function<double[][], double[]> pool) {
    int layers = weights.layerCount();
    int heads = settings.heads();
    boolean[] real = allTrue(input.length);
    double[] pooled = pool.apply(encode(input, null).embeddings());
    double[] importance = new double[layers * heads];
    for (int l = 0; l < layers; l++) {
      double[][] below = layers(embedded(input), real, 0, l, new double[layers][][][],
          new double[layers][][]);
      for (int h = 0; h < heads; h++) {
        ablatedLayer = l;
        ablatedHead = h;
        double[][] out = layers(below, real, l, layers,
            new double[layers][][][], new double[layers][][]);
        ablatedLayer = -1;
        ablatedHead = -1;
        importance[l * heads + h] = 1 - io.corpus.encoder.testing.Tolerances.cosine(pooled, pool.apply(out));
      }
    }
    return importance;
  }

  private double[][] embedded(float[][] input) {
    double[][] x = new double[input.length][width];
    for (int i = 0; i < input.length; i++) {
      for (int e = 0; e < width; e++) {
        x[i][e] = input[i][e] + position(i, e);
      }
    }
    return x;
  }

  /** Layers [from, to) over x; after the last layer, the final norm. */
  private double[][] layers(double[][] x, boolean[] real, int from, int to, double[][][][] maps,
      double[][][] norms) {
    for (int l = from; l < to; l++) {
      LayerWeights w = weights.layers().get(l);
      if (architecture.norms().placement().first()) {
        double[][] attended = norm(x, w.attentionNorm());
        double[][] a = attention(attended, w, real, maps, norms, l);
        x = add(x, norm(a, w.attentionOutputNorm()));
        double[][] f = feedForward(norm(x, w.feedForwardNorm()), w);
        x = add(x, norm(f, w.feedForwardOutputNorm()));
      } else {
        x = norm(add(x, attention(x, w, real, maps, norms, l)), w.attentionNorm());
        x = norm(add(x, feedForward(x, w)), w.feedForwardNorm());
      }
    }
    if (architecture.norms().finalNorm() && to == weights.layerCount()) {
      x = norm(x, weights.finalNorm());
    }
    return x;
  }

  private double position(int i, int e) {
    return switch (settings.positional()) {
      case NONE -> 0;
      case SINUSOIDAL -> PositionalEncoding.sinusoid(i, e, width);
      case LEARNED -> weights.positionTable()[i * width + e];
    };
  }

  private double[][] attention(double[][] x, LayerWeights w, boolean[] real, double[][][][] maps,
      double[][][] norms, int layer) {
    int t = x.length;
    int heads = settings.heads();
    int kvHeads = settings.kvHeads();
    int d = settings.headWidth(width);
    int group = heads / kvHeads;
    double[][] qkv = linear(x, w.inProjWeight().floats(), w.inProjBias());   // (T, (H + 2·Hkv)·D)
    if (w.queryNorm() instanceof Norm.Scale q && w.keyNorm() instanceof Norm.Scale k) {
      for (int i = 0; i < t; i++) {
        for (int h = 0; h < heads + kvHeads; h++) {                  // q heads, then k heads
          double[] head = java.util.Arrays.copyOfRange(qkv[i], h * d, (h + 1) * d);
          double[] normed = RmsNorm.exact(head, h < heads ? q.scale() : k.scale(),
              architecture.norms().eps());
          System.arraycopy(normed, 0, qkv[i], h * d, d);
        }
      }
    }
    if (settings.layer(layer).rotary() instanceof RotaryPositions.Rotated form) {
      Rotary rotary = new Rotary(d, form);
      for (int i = 0; i < t; i++) {
        for (int h = 0; h < heads + kvHeads; h++) {
          rotate(qkv[i], h * d, d, rotary, i);
        }
      }
    }
    AttentionMask mask = settings.mask(layer);
    double scale = settings.scoreScale(d);
    int keys = heads * d;                       // where the k heads start, then the v heads
    int values = keys + kvHeads * d;
    double[][] context = new double[t][heads * d];
    maps[layer] = new double[heads][t][t];
    for (int h = 0; h < heads; h++) {
      for (int i = 0; i < t; i++) {
        double[] s = new double[t];
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j < t; j++) {
          boolean allowed = real[j] && mask.allows(i, j);
          double dot = 0;
          for (int c = 0; c < d; c++) {
            dot += qkv[i][h * d + c] * qkv[j][keys + (h / group) * d + c];
          }
          double bias = architecture.positionTerms() instanceof ScoreBias b
              ? b.value(h, heads, j - i, weights.scoreBiasTable()) : 0;
          s[j] = allowed ? dot * scale + bias : Double.NEGATIVE_INFINITY;
          max = Math.max(max, s[j]);
        }
        double sum = 0;
        for (int j = 0; j < t; j++) {
          s[j] = max == Double.NEGATIVE_INFINITY ? 0 : Math.exp(s[j] - max);
          sum += s[j];
        }
        for (int j = 0; j < t; j++) {
          double p = real[i] && sum > 0 ? s[j] / sum : 0;
          maps[layer][h][i][j] = p;
          for (int c = 0; c < d; c++) {
            context[i][h * d + c] += p * qkv[j][values + (h / group) * d + c];
          }
        }
      }
    }
    float[] out = w.outProjWeight().floats();              // (E, H·D)
    norms[layer] = new double[heads][t];
    for (int h = 0; h < heads; h++) {
      for (int j = 0; j < t; j++) {
        double sum = 0;
        for (int e = 0; e < width; e++) {
          double y = 0;
          for (int c = 0; c < d; c++) {
            y += qkv[j][values + (h / group) * d + c] * out[e * heads * d + h * d + c];
          }
          sum += y * y;
        }
        norms[layer][h][j] = Math.sqrt(sum);
      }
    }
    if (layer == ablatedLayer) {
      for (int i = 0; i < t; i++) {
        java.util.Arrays.fill(context[i], ablatedHead * d, (ablatedHead + 1) * d, 0);
      }
    }
    return linear(context, out, w.outProjBias());
  }

  /** Each rotated pair of the head at {@code offset} turned by its angle at position p. */
  private static void rotate(double[] row, int offset, int d, Rotary rotary, int p) {
    for (int i = 0; i < rotary.pairs(); i++) {
      int first = offset + rotary.first(i);
      int second = offset + rotary.second(i);
      double a = row[first];
      double b = row[second];
      double angle = rotary.angle(p, i);
      row[first] = a * Math.cos(angle) - b * Math.sin(angle);
      row[second] = b * Math.cos(angle) + a * Math.sin(angle);
    }
  }

  private double[][] feedForward(double[][] x, LayerWeights w) {
    if (w.feedForward() instanceof FeedForward.Plain plain) {
      return linear(activated(linear(x, plain.in().floats(), plain.inBias()), null),
          plain.out().floats(), plain.outBias());
    }
    FeedForward.Gated gated = (FeedForward.Gated) w.feedForward();
    double[][] h = linear(x, gated.activated().floats(), gated.activatedBias());
    double[][] gate = linear(x, gated.linear().floats(), gated.linearBias());
    return linear(activated(h, gate), gated.out().floats(), gated.outBias());
  }

  /** act(h), times the gate where there is one. */
  private double[][] activated(double[][] h, double[][] gate) {
    for (int r = 0; r < h.length; r++) {
      for (int i = 0; i < h[r].length; i++) {
        h[r][i] = architecture.activation().exact(h[r][i]) * (gate == null ? 1 : gate[r][i]);
      }
    }
    return h;
  }

  /** y = x·Wᵀ + b with W (out, in). */
  private static double[][] linear(double[][] x, float[] w, float[] b) {
    int out = b.length;
    int in = w.length / out;
    double[][] y = new double[x.length][out];
    for (int o = 0; o < out; o++) {            // each weight row read once, for every x row
      for (int r = 0; r < x.length; r++) {
        double[] a = {b[o], 0, 0, 0};           // four running sums: not one add's latency
        int i = 0;
        for (; i + 4 <= in; i += 4) {
          a[0] += x[r][i] * w[o * in + i];
          a[1] += x[r][i + 1] * w[o * in + i + 1];
          a[2] += x[r][i + 2] * w[o * in + i + 2];
          a[3] += x[r][i + 3] * w[o * in + i + 3];
        }
        for (; i < in; i++) {
          a[0] += x[r][i] * w[o * in + i];
        }
        y[r][o] = (a[0] + a[1]) + (a[2] + a[3]);
      }
    }
    return y;
  }

  /** x through the norm; x itself where there is none. */
  private double[][] norm(double[][] x, Norm norm) {
    if (norm instanceof Norm.Affine a) {
      return norm(x, a.scale(), a.shift());
    }
    return norm instanceof Norm.Scale s ? norm(x, s.scale(), new float[width]) : x;
  }

  private double[][] norm(double[][] x, float[] gamma, float[] beta) {
    double[][] y = new double[x.length][];
    for (int r = 0; r < x.length; r++) {
      y[r] = architecture.norms().kind().exact(x[r], gamma, beta, architecture.norms().eps());
    }
    return y;
  }

  private static double[][] add(double[][] a, double[][] b) {
    double[][] y = new double[a.length][];
    for (int r = 0; r < a.length; r++) {
      y[r] = new double[a[r].length];
      for (int i = 0; i < a[r].length; i++) {
        y[r][i] = a[r][i] + b[r][i];
      }
    }
    return y;
  }

  private static boolean[] allTrue(int t) {
    boolean[] all = new boolean[t];
    java.util.Arrays.fill(all, true);
    return all;
  }
}
