package io.corpus.encoder.cli;

import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.kernel.RowMajorBlas;
import io.corpus.encoder.model.Encoder;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.PositionalEncoding;
import io.corpus.encoder.model.RandomModels;
import io.corpus.encoder.model.ReferenceEncoder;
import io.corpus.encoder.model.TokenBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code jobs/bench}: the encoder layer's speed beside the sgemm rate measured in the same
 * process, and the plain reference kernel's. Each figure runs on {@code --threads} threads at
 * once, one BLAS thread each, as Spark tasks do; the sgemm and layer figures are the best of
 * three alternating rounds of {@code --seconds} each. The last line is machine-readable.
 */
public final class Bench {
  /** The shape measured; defaults are one BERT-base layer. */
  record Shape(int width, int heads, int ffn, int length, int batchTokens, int threads,
      double seconds, Activation activation) {

    /** FLOPs of one layer over one token of a T-token sequence: projections, attention, FFN. */
    double flopsPerToken() {
      return 2.0 * width * 3 * width + 2.0 * width * width + 4.0 * width * ffn
          + 4.0 * length * width;
    }
  }

  private static final int ROUNDS = 3;

  private Bench() {}

  public static void main(String[] args) throws Exception {
    Shape shape = parse(args);
    System.out.printf("shape: E=%d H=%d F=%d T=%d, %d tokens per batch, %d threads x 1 BLAS "
        + "thread, %s; BLAS %s%n", shape.width(), shape.heads(), shape.ffn(), shape.length(),
        shape.batchTokens(), shape.threads(), shape.activation().configName(),
        RowMajorBlas.implementation());
    // Rounds alternate the two measurements so that both see the same machine; the best round
    // of each counts (the machines are shared and noisy, interference only ever slows a run).
    double sgemm = 0;
    double[] layer = {0, 0};
    for (int round = 0; round < ROUNDS; round++) {
      sgemm = Math.max(sgemm, sgemmGflops(shape));
      double[] r = layerRate(shape);
      layer = r[1] > layer[1] ? r : layer;
    }
    System.out.printf("sgemm     (%d x %d . %d x %d):  %8.1f GFLOP/s%n", shape.batchTokens(),
        shape.width(), shape.width(), 3 * shape.width(), sgemm);
    System.out.printf("layer     (fast kernel):            %8.1f GFLOP/s, %,10.0f tokens/s "
        + "(%.0f%% of sgemm)%n", layer[1], layer[0], 100 * layer[1] / sgemm);
    double[] naive = naiveRate(shape);
    System.out.printf("reference (plain loops, 1 thread):  %8.1f GFLOP/s, %,10.1f tokens/s%n",
        naive[1], naive[0]);
    System.out.printf("RESULT sgemm_gflops=%.1f layer_gflops=%.1f layer_tokens_per_s=%.0f "
        + "layer_vs_sgemm=%.3f naive_tokens_per_s=%.1f%n", sgemm, layer[1], layer[0],
        layer[1] / sgemm, naive[0]);
  }

  static Shape parse(String[] args) {
    int width = 768;
    int heads = 12;
    int ffn = 3072;
    int length = 128;
    int batchTokens = 4096;
    int threads = Runtime.getRuntime().availableProcessors();
    double seconds = 1.5;
    Activation activation = Activation.GELU;
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--width" -> width = Integer.parseInt(value);
        case "--heads" -> heads = Integer.parseInt(value);
        case "--ffn" -> ffn = Integer.parseInt(value);
        case "--length" -> length = Integer.parseInt(value);
        case "--batch-tokens" -> batchTokens = Integer.parseInt(value);
        case "--threads" -> threads = Integer.parseInt(value);
        case "--seconds" -> seconds = Double.parseDouble(value);
        case "--activation" -> activation = Activation.fromConfigName(value);
        default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; usage: "
            + "jobs/bench [--width E] [--heads H] [--ffn F] [--length T] [--batch-tokens N] "
            + "[--threads N] [--seconds S] [--activation A]");
      }
      i++;
    }
    return new Shape(width, heads, ffn, length, batchTokens, threads, seconds, activation);
  }

  /** The QKV projection's product, (N, E)·(E, 3E), on every thread at once. */
  static double sgemmGflops(Shape s) throws Exception {
    int n = s.batchTokens();
    int e = s.width();
    double flops = 2.0 * n * e * 3 * e;
    return runOnThreads(s, () -> {
      Random random = new Random(1);
      float[] x = gaussian(random, n * e);
      float[] w = gaussian(random, 3 * e * e);
      float[] y = new float[n * 3 * e];
      return (Runnable) () -> RowMajorBlas.linear(n, e, 3 * e, x, 0, w, y, 0, false);
    }) * flops / 1e9;
  }

  /** One encoder layer over batches of T-token sequences; returns {tokens/s, GFLOP/s}. */
  static double[] layerRate(Shape s) throws Exception {
    ModelSettings settings = new ModelSettings(s.heads(), s.activation(), false, false, 1e-12,
        false, 0, PositionalEncoding.NONE);
    EncoderWeights weights = RandomModels.weights(new Random(2), 1, s.width(), s.ffn(), false, 0);
    int sequences = Math.max(1, s.batchTokens() / s.length());
    int tokens = sequences * s.length();
    double batchesPerSecond = runOnThreads(s, () -> {
      Encoder encoder = new Encoder(settings, weights);
      TokenBatch batch = new TokenBatch(s.width(), tokens);
      float[] input = gaussian(new Random(3), tokens * s.width());
      return (Runnable) () -> {
        batch.clear();
        for (int b = 0; b < sequences; b++) {
          for (int t = 0; t < s.length(); t++) {
            int offset = batch.appendToken(t);
            System.arraycopy(input, (b * s.length() + t) * s.width(), batch.tokens(), offset,
                s.width());
          }
          batch.endSequence();
        }
        encoder.forward(batch, null);
      };
    });
    double tokensPerSecond = batchesPerSecond * tokens;
    return new double[] {tokensPerSecond, tokensPerSecond * s.flopsPerToken() / 1e9};
  }

  /** The reference encoder over one sequence, one thread: the baseline the fast kernel replaces. */
  static double[] naiveRate(Shape s) {
    ModelSettings settings = new ModelSettings(s.heads(), s.activation(), false, false, 1e-12,
        false, 0, PositionalEncoding.NONE);
    EncoderWeights weights = RandomModels.weights(new Random(2), 1, s.width(), s.ffn(), false, 0);
    int length = Math.min(s.length(), 32);
    float[][] x = new float[length][];
    Random random = new Random(4);
    for (int t = 0; t < length; t++) {
      x[t] = gaussian(random, s.width());
    }
    ReferenceEncoder reference = new ReferenceEncoder(settings, weights);
    reference.encode(x, null);
    long start = System.nanoTime();
    reference.encode(x, null);
    double seconds = (System.nanoTime() - start) / 1e9;
    double tokensPerSecond = length / seconds;
    Shape shorter = new Shape(s.width(), s.heads(), s.ffn(), length, s.batchTokens(), 1,
        s.seconds(), s.activation());
    return new double[] {tokensPerSecond, tokensPerSecond * shorter.flopsPerToken() / 1e9};
  }

  /**
   * Runs the task each thread builds, once to warm up and then for the set time on every thread
   * at once; returns the total runs per second.
   */
  static double runOnThreads(Shape s, Callable<Runnable> setup) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(s.threads());
    try {
      List<Future<double[]>> futures = new ArrayList<>();
      for (int i = 0; i < s.threads(); i++) {
        futures.add(pool.submit(() -> {
          Runnable task = setup.call();
          task.run();
          long start = System.nanoTime();
          long deadline = start + (long) (s.seconds() * 1e9);
          int runs = 0;
          while (System.nanoTime() < deadline) {
            task.run();
            runs++;
          }
          return new double[] {runs, (System.nanoTime() - start) / 1e9};
        }));
      }
      double rate = 0;
      for (Future<double[]> f : futures) {
        double[] r = f.get();
        rate += r[0] / r[1];
      }
      return rate;
    } finally {
      pool.shutdownNow();
    }
  }

  private static float[] gaussian(Random random, int count) {
    float[] out = new float[count];
    for (int i = 0; i < count; i++) {
      out[i] = (float) random.nextGaussian();
    }
    return out;
  }
}
