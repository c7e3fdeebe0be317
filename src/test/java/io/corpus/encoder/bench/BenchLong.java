package io.corpus.encoder.bench;

import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.kernel.RowMajorBlas;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.Encoder;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.FeedForward;
import io.corpus.encoder.model.LayerAttention;
import io.corpus.encoder.model.LayerWeights;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.PositionalEncoding;
import io.corpus.encoder.model.RandomModels;
import io.corpus.encoder.model.TokenBatch;
import io.corpus.encoder.model.Window;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * {@code jobs/benchmarks/bench-long [--layers L] [--rounds R]}: how the encoder's time per token grows with
 * the sequence length for ModernBERT-base layers (E = 768, 12 heads, gated F = 1,152, rotary),
 * in this process on one thread: a stack of local layers only (each query sees 64 positions
 * either side), whose cost per token should not grow with T, and a stack of global layers, whose
 * attention grows with T. Alternating rounds time 8 sequences of T = 1,024 and one of T = 8,192
 * (the same 8,192 tokens); prints each round and the ratio of medians.
 */
public final class BenchLong {
  private static final int WIDTH = 768;
  private static final int HEADS = 12;
  private static final int FFN = 1152;
  private static final int TOKENS = 8192;

  private BenchLong() {}

  public static void main(String[] args) {
    int layers = 4;
    int rounds = 3;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--layers" -> layers = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]
            + "; usage: jobs/benchmarks/bench-long [--layers L] [--rounds R]");
      }
    }
    System.out.printf("ModernBERT-base layers (E=%d, H=%d, gated F=%d), %d a stack, one thread, "
        + "BLAS %s%n", WIDTH, HEADS, FFN, layers, RowMajorBlas.implementation());
    EncoderWeights weights = gatedWeights(new Random(1), layers);
    for (LayerAttention attention : List.of(new LayerAttention(Window.within(64), 10_000),
        new LayerAttention(Window.GLOBAL, 160_000))) {
      ModelSettings settings = new ModelSettings(HEADS, Architecture.encoder(Activation.GELU, 1e-5)
          .preNormWithFinalNorm().gated(true).layers(Collections.nCopies(layers, attention))
          .build(), Window.GLOBAL,
          PositionalEncoding.NONE);
      Encoder encoder = new Encoder(settings, weights);
      String kind = attention.window() instanceof Window.Within ? "local (window 64)" : "global";
      time(encoder, 1024);                               // warm-up: JIT, buffers
      List<Double> shortPerToken = new ArrayList<>();
      List<Double> longPerToken = new ArrayList<>();
      for (int r = 1; r <= rounds; r++) {
        double a = time(encoder, 1024);
        double b = time(encoder, TOKENS);
        shortPerToken.add(a);
        longPerToken.add(b);
        System.out.printf("%s round %d: T=1,024 %.1f us/token, T=8,192 %.1f us/token%n", kind,
            r, a * 1e6, b * 1e6);
      }
      System.out.printf("%s layers: time per token at T=8,192 / at T=1,024 = %.2f (medians)%n",
          kind, median(longPerToken) / median(shortPerToken));
    }
  }

  /** Seconds per token of one forward over 8,192 tokens in sequences of {@code length}. */
  private static double time(Encoder encoder, int length) {
    TokenBatch batch = new TokenBatch(WIDTH, TOKENS);
    Random random = new Random(length);
    for (int s = 0; s < TOKENS / length; s++) {
      for (int t = 0; t < length; t++) {
        int row = batch.appendToken(t);
        float[] x = batch.tokens();
        for (int e = 0; e < WIDTH; e++) {
          x[row + e] = (float) random.nextGaussian();
        }
      }
      batch.endSequence();
    }
    long start = System.nanoTime();
    encoder.forward(batch);
    return (System.nanoTime() - start) / 1e9 / TOKENS;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }

  /** Random layers of ModernBERT-base's shapes with a gated feed-forward. */
  private static EncoderWeights gatedWeights(Random random, int layers) {
    EncoderWeights plain = RandomModels.weights(random, layers, WIDTH, FFN, true, 0);
    List<LayerWeights> gated = new ArrayList<>();
    for (LayerWeights w : plain.layers()) {
      FeedForward.Plain ff = RandomModels.plain(w);
      gated.add(LayerWeights.builder(w.width(), w.ffnWidth())
          .attention(w.inProjWeight().floats(), w.outProjWeight().floats())
          .attentionBiases(w.inProjBias(), w.outProjBias())
          .gatedFeedForward(ff.in().floats(), ff.in().floats().clone(), ff.out().floats())
          .feedForwardBiases(ff.inBias(), ff.outBias()).gateBias(ff.inBias().clone())
          .norms(RandomModels.affine(w.attentionNorm()).scale(),
              RandomModels.affine(w.attentionNorm()).shift(),
              RandomModels.affine(w.feedForwardNorm()).scale(),
              RandomModels.affine(w.feedForwardNorm()).shift()).build());
    }
    return new EncoderWeights(gated, plain.finalNorm());
  }
}
