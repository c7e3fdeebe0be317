package io.corpus.encoder.bench;

import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.kernel.RowMajorBlas;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.AttentionHeads;
import io.corpus.encoder.model.Encoder;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.FeedForward;
import io.corpus.encoder.model.LayerAttention;
import io.corpus.encoder.model.LayerWeights;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.Norm;
import io.corpus.encoder.model.PositionalEncoding;
import io.corpus.encoder.model.RandomModels;
import io.corpus.encoder.model.RotaryPositions;
import io.corpus.encoder.model.Shapes;
import io.corpus.encoder.model.TokenBatch;
import io.corpus.encoder.model.Window;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The shape table's figures against measured ones, for a BERT-base-shaped and a
 * Qwen3-0.6B-shaped random encoder (jobs/benchmarks/bench-shapes): multiply-adds per token (the
 * table's and a hand count), the work buffers {@code --check} estimates against what the encoder
 * holds after a forward pass, what the heap keeps after the first pass, and what a fourth pass
 * (the JIT has compiled the kernels by then) allocates and takes.
 */
public final class ShapeFigures {
  private static final int SEQUENCE = 128;

  private ShapeFigures() {}

  public static void main(String[] args) {
    int tokens = args.length > 0 ? Integer.parseInt(args[0]) : 1024;
    Random random = new Random(11);
    System.out.println("BLAS " + RowMajorBlas.implementation() + "; " + tokens + " tokens as "
        + tokens / SEQUENCE + " sequences of " + SEQUENCE);
    // BERT-base: per layer 4·768² + 2·768·3072 + 2·768·128 multiply-adds a token, 12 layers.
    figures("BERT-base", new ModelSettings(12, Architecture.encoder(Activation.GELU, 1e-12).build(),
        Window.GLOBAL, PositionalEncoding.NONE),
        RandomModels.weights(random, 12, 768, 3072, false, 0),
        12.0 * (4 * 768 * 768 + 2 * 768 * 3072 + 2 * 768 * SEQUENCE), tokens, random);
    // Qwen3-0.6B: q, k, v 1024·4096, out 2048·1024, gated feed-forward 3·1024·3072, scores and
    // weighted sum 2·2048·128 a layer, 28 layers.
    figures("Qwen3-0.6B", qwen3Settings(), qwen3Weights(random),
        28.0 * (1024 * 4096 + 2048 * 1024 + 3 * 1024 * 3072 + 2 * 2048 * SEQUENCE), tokens,
        random);
  }

  private static void figures(String name, ModelSettings settings, EncoderWeights weights,
      double handCount, int tokens, Random random) {
    Encoder encoder = new Encoder(settings, weights);
    Shapes shapes = encoder.shapes();
    TokenBatch batch = new TokenBatch(weights.width(), tokens);
    for (int s = 0; s < tokens / SEQUENCE; s++) {
      for (int p = 0; p < SEQUENCE; p++) {
        int at = batch.appendToken(p);
        float[] x = batch.tokens();
        for (int i = 0; i < weights.width(); i++) {
          x[at + i] = (float) random.nextGaussian();
        }
      }
      batch.endSequence();
    }
    List<MemoryPoolMXBean> heap = new ArrayList<>();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        heap.add(pool);
      }
    }
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    System.gc();
    long before = heap.stream().mapToLong(p -> p.getUsage().getUsed()).sum();
    encoder.forward(copy(batch, weights.width()));   // the first pass makes the buffers
    System.gc();
    long after = heap.stream().mapToLong(p -> p.getUsage().getUsed()).sum();
    for (int warm = 0; warm < 2; warm++) {   // the JIT compiles the vector kernels
      encoder.forward(copy(batch, weights.width()));
    }
    long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
    long start = System.nanoTime();
    encoder.forward(batch);
    double seconds = (System.nanoTime() - start) / 1e9;
    long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
    double macs = shapes.multiplyAddsPerToken(SEQUENCE);
    long estimate = shapes.bufferFloats(tokens);
    System.out.printf("%s: %,d parameters in the layers; multiply-adds a token at %d keys: "
            + "table %,.0f, by hand %,.0f%n", name, parameters(weights), SEQUENCE, macs,
        handCount);
    System.out.printf("  work buffers at %,d tokens: --check's estimate %,.1f MB (+ %,.1f MB of "
            + "the batch's tokens); the encoder holds %,.1f MB; the heap, after a full GC, holds "
            + "%,.1f MB more after the first pass than before it; the fourth pass allocated "
            + "%,.1f MB in all%n", tokens, estimate * 4 / 1e6,
        shapes.streamFloats(tokens) * 4 / 1e6, encoder.bufferFloats() * 4 / 1e6,
        (after - before) / 1e6, allocated / 1e6);
    System.out.printf("  fourth forward pass %.2f s: %,.1f GFLOP/s by the table's count%n", seconds,
        2 * macs * tokens / seconds / 1e9);
  }

  /** A batch of the same sequences (forward replaces a batch's tokens by its output). */
  private static TokenBatch copy(TokenBatch batch, int width) {
    TokenBatch copy = new TokenBatch(width, batch.tokenCount());
    for (int s = 0; s < batch.sequenceCount(); s++) {
      for (int r = batch.firstRow(s); r < batch.firstRow(s) + batch.length(s); r++) {
        int at = copy.appendToken(batch.position(r));
        System.arraycopy(batch.tokens(), r * width, copy.tokens(), at, width);
      }
      copy.endSequence();
    }
    return copy;
  }

  private static long values(io.corpus.encoder.kernel.Matrix m) {
    return (long) m.rows() * m.cols();
  }

  private static long parameters(EncoderWeights weights) {
    long count = 0;
    for (LayerWeights l : weights.layers()) {
      count += values(l.inProjWeight()) + values(l.outProjWeight())
          + (l.feedForward() instanceof FeedForward.Gated g
              ? values(g.activated()) + values(g.linear()) + values(g.out())
              : values(((FeedForward.Plain) l.feedForward()).in())
                  + values(((FeedForward.Plain) l.feedForward()).out()));
    }
    return count;
  }

  private static ModelSettings qwen3Settings() {
    List<LayerAttention> layers = Collections.nCopies(28,
        new LayerAttention(Window.GLOBAL, RotaryPositions.halves(1_000_000)));
    return new ModelSettings(16, Architecture.encoder(Activation.SILU, 1e-6).preNormWithFinalNorm()
        .gated(true).rmsNorm().causal(true).layers(layers)
        .attention(AttentionHeads.grouped(8, 128)).build(), Window.GLOBAL,
        PositionalEncoding.NONE);
  }

  /** 28 layers of Qwen3-0.6B's shapes: E 1024, 16 q and 8 KV heads of 128, F 3072 gated. */
  private static EncoderWeights qwen3Weights(Random random) {
    int e = 1024;
    int q = 16 * 128;
    int qkv = q + 2 * 8 * 128;
    int f = 3072;
    List<LayerWeights> layers = new ArrayList<>();
    for (int l = 0; l < 28; l++) {
      layers.add(LayerWeights.builder(e, f)
          .attention(gaussian(random, qkv * e, e), gaussian(random, e * q, q))
          .queryKeyNorms(ones(128), ones(128))
          .gatedFeedForward(gaussian(random, f * e, e), gaussian(random, f * e, e),
              gaussian(random, e * f, f))
          .norms(ones(e), ones(e)).build());
    }
    return new EncoderWeights(layers, new Norm.Affine(ones(e), new float[e]));
  }

  private static float[] gaussian(Random random, int count, int fanIn) {
    float[] out = new float[count];
    double scale = 1 / Math.sqrt(fanIn);
    for (int i = 0; i < count; i++) {
      out[i] = (float) (random.nextGaussian() * scale);
    }
    return out;
  }

  private static float[] ones(int count) {
    float[] out = new float[count];
    java.util.Arrays.fill(out, 1);
    return out;
  }
}
