package io.corpus.encoder.bench;

import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.kernel.Elementwise;
import io.corpus.encoder.kernel.RowMajorBlas;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.Encoder;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.PositionalEncoding;
import io.corpus.encoder.model.RandomModels;
import io.corpus.encoder.model.ReferenceEncoder;
import io.corpus.encoder.model.TokenBatch;
import io.corpus.encoder.model.Window;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * {@code jobs/benchmarks/bench}: the encoder layer's speed beside the sgemm rate measured in the same
 * process, and the plain reference kernel's. Each thread of {@code --threads} (one BLAS thread
 * each, as Spark tasks) alternates the two for {@code --seconds}: a layer batch, then as many
 * sgemm products as make about the same work. Both rates are then sampled over the same moments
 * of a noisy, shared machine, which separate rounds were not (a neighbour's load comes and goes
 * over seconds: alone, the sgemm figure varied 120-230 GFLOP/s between runs here). Then the
 * layer's products alone ({@link ProductsOnly}) on every thread, and the time the lengths' tokens
 * take through {@code --layers} layers at both rates: the floor under a job over those tokens.
 * The last line is machine-readable.
 */
public final class Bench {
  /**
   * The shape measured; defaults are one BERT-base layer. {@code lengths}: the sequences' lengths
   * in the order batches take them (a corpus's real lengths, or T over and over).
   */
  record Shape(int width, int heads, int ffn, int[] lengths, int batchTokens, int threads,
      double seconds, Activation activation, int layers) {

    /** FLOPs of one layer over one token of a T-token sequence: projections, attention, FFN. */
    double flopsPerToken(int length) {
      return productFlopsPerToken() + 4.0 * length * width;
    }

    /** FLOPs of one layer's four products per token: QKV, output projection, feed-forward. */
    double productFlopsPerToken() {
      return 2.0 * width * 3 * width + 2.0 * width * width + 4.0 * width * ffn;
    }

    /** Tokens of all the lengths: a corpus's, or the batch of one repeated length. */
    long tokens() {
      return Arrays.stream(lengths).asLongStream().sum();
    }

    /** How the lengths read: {@code T=128}, or their count, median and longest. */
    String describeLengths() {
      int[] sorted = lengths.clone();
      Arrays.sort(sorted);
      return sorted[0] == sorted[sorted.length - 1] ? "T=" + sorted[0]
          : String.format("%,d sequences of T from %d to %d, median %d", sorted.length,
              sorted[0], sorted[sorted.length - 1], sorted[sorted.length / 2]);
    }

    /** FLOPs of the sgemm measured: the QKV projection, (N, E)·(E, 3E). */
    double sgemmFlops() {
      return 2.0 * batchTokens * width * 3 * width;
    }
  }

  /** Untimed runs first, at least this long: the kernels' first runs are interpreted. */
  private static final long WARM_UP_NANOS = 2_000_000_000L;

  /** Time spent and work done by one thread in each of the two measurements. */
  record Sample(double sgemmSeconds, double sgemmFlops, double layerSeconds, double layerFlops,
      double layerTokens) {}

  private Bench() {}

  public static void main(String[] args) throws Exception {
    Shape shape = parse(args);
    System.out.printf("shape: E=%d H=%d F=%d, %s, %d tokens per batch, %d threads x 1 BLAS "
        + "thread, %s; BLAS %s; %s%n", shape.width(), shape.heads(), shape.ffn(),
        shape.describeLengths(), shape.batchTokens(), shape.threads(),
        shape.activation().configName(), RowMajorBlas.implementation(),
        Elementwise.INSTANCE.describe());
    List<Sample> samples = interleaved(shape);
    double sgemm = 0;
    double tokensPerSecond = 0;
    double layer = 0;
    for (Sample t : samples) {          // rates of threads running at once add up
      sgemm += t.sgemmFlops() / t.sgemmSeconds() / 1e9;
      tokensPerSecond += t.layerTokens() / t.layerSeconds();
      layer += t.layerFlops() / t.layerSeconds() / 1e9;
    }
    System.out.printf("sgemm     (%d x %d . %d x %d):  %8.1f GFLOP/s%n", shape.batchTokens(),
        shape.width(), shape.width(), 3 * shape.width(), sgemm);
    System.out.printf("layer     (fast kernel):            %8.1f GFLOP/s, %,10.0f tokens/s "
        + "(%.0f%% of sgemm)%n", layer, tokensPerSecond, 100 * layer / sgemm);
    double[] naive = naiveRate(shape);
    System.out.printf("reference (plain loops, 1 thread):  %8.1f GFLOP/s, %,10.1f tokens/s%n",
        naive[1], naive[0]);
    double productsPerSecond = ProductsOnly.tokensPerSecond(shape);
    double tokenLayers = (double) shape.tokens() * shape.layers();
    double floor = tokenLayers / productsPerSecond;
    System.out.printf("products  (the layer's alone):      %8.1f GFLOP/s, %,10.0f tokens/s%n",
        productsPerSecond * shape.productFlopsPerToken() / 1e9, productsPerSecond);
    System.out.printf("%,d tokens through %d layers on %d threads: the layers %.1f s, their "
        + "products alone %.1f s%n", shape.tokens(), shape.layers(), shape.threads(),
        tokenLayers / tokensPerSecond, floor);
    System.out.printf("RESULT sgemm_gflops=%.1f layer_gflops=%.1f layer_tokens_per_s=%.0f "
        + "layer_vs_sgemm=%.3f naive_tokens_per_s=%.1f products_tokens_per_s=%.0f "
        + "layers_s=%.2f products_floor_s=%.2f%n", sgemm, layer, tokensPerSecond, layer / sgemm,
        naive[0], productsPerSecond, tokenLayers / tokensPerSecond, floor);
  }

  static Shape parse(String[] args) {
    int width = 768;
    int heads = 12;
    int ffn = 3072;
    int[] lengths = {128};
    int batchTokens = 4096;
    int threads = Runtime.getRuntime().availableProcessors();
    double seconds = 12;
    Activation activation = Activation.GELU;
    int layers = 1;
    int sequences = 0;
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--width" -> width = Integer.parseInt(value);
        case "--heads" -> heads = Integer.parseInt(value);
        case "--ffn" -> ffn = Integer.parseInt(value);
        case "--length" -> lengths = new int[] {Integer.parseInt(value)};
        case "--lengths" -> lengths = lengthsOf(Path.of(value));
        case "--batch-tokens" -> batchTokens = Integer.parseInt(value);
        case "--threads" -> threads = Integer.parseInt(value);
        case "--seconds" -> seconds = Double.parseDouble(value);
        case "--activation" -> activation = Activation.fromConfigName(value);
        case "--layers" -> layers = Integer.parseInt(value);
        case "--sequences" -> sequences = Integer.parseInt(value);
        default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; usage: "
            + "jobs/benchmarks/bench [--width E] [--heads H] [--ffn F] [--length T [--sequences N] | "
            + "--lengths FILE] [--batch-tokens N] [--threads N] [--seconds S] [--activation A] "
            + "[--layers L]");
      }
      i++;
    }
    if (lengths.length == 1) {        // one length: N sequences, or as many as fill a batch
      int[] filled = new int[sequences > 0 ? sequences : Math.max(1, batchTokens / lengths[0])];
      Arrays.fill(filled, lengths[0]);
      lengths = filled;
    }
    return new Shape(width, heads, ffn, lengths, batchTokens, threads, seconds, activation,
        layers);
  }

  /**
   * The sequences' lengths in a JSON-lines file of token ids, one {@code "ids": [...]} array a
   * line, as {@code jobs/samples/make-text-corpus} writes {@code ids.jsonl}.
   */
  static int[] lengthsOf(Path file) {
    try (Stream<String> lines = Files.lines(file)) {
      int[] lengths = lines.filter(line -> line.contains("\"ids\"")).mapToInt(line -> {
        String ids = line.substring(line.indexOf('[', line.indexOf("\"ids\"")) + 1,
            line.indexOf(']', line.indexOf("\"ids\"")));
        return ids.isBlank() ? 0 : ids.split(",").length;
      }).filter(t -> t > 0).toArray();
      if (lengths.length == 0) {
        throw new IllegalArgumentException(file + " holds no non-empty \"ids\" arrays");
      }
      return lengths;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the lengths in " + file, e);
    }
  }

  /**
   * On every thread at once: a layer batch, then the sgemm repeated for about the same work,
   * again and again for the set time. Only pairs that end before the stop count, so every
   * moment counted had all threads busy (a thread running alone would have the machine to
   * itself); the threads start together, once all have built their data and warmed up.
   */
  static List<Sample> interleaved(Shape s) throws Exception {
    ModelSettings settings = layerSettings(s);
    EncoderWeights weights = RandomModels.weights(new Random(2), 1, s.width(), s.ffn(), false, 0);
    ExecutorService pool = Executors.newFixedThreadPool(s.threads());
    CyclicBarrier ready = new CyclicBarrier(s.threads() + 1);
    AtomicBoolean stop = new AtomicBoolean();
    try {
      List<Future<Sample>> futures = new ArrayList<>();
      for (int i = 0; i < s.threads(); i++) {
        int firstSequence = (int) ((long) i * s.lengths().length / s.threads());
        futures.add(pool.submit(() -> {
          LayerBatches layer;
          Runnable sgemm;
          try {
            layer = new LayerBatches(s, settings, weights, firstSequence);
            sgemm = sgemmTask(s);
            long warmUpEnd = System.nanoTime() + WARM_UP_NANOS;   // until the JIT has compiled
            for (int run = 0; run < 2 || System.nanoTime() < warmUpEnd; run++) {
              layer.run();
              sgemm.run();
            }
          } catch (RuntimeException | Error e) {
            ready.reset();             // the others, and the timer, stop waiting: see get()
            throw e;
          }
          ready.await();
          double sgemmSeconds = 0;
          double layerSeconds = 0;
          double layerFlops = 0;
          double layerTokens = 0;
          double sgemmRuns = 0;
          int pairs = 0;
          while (true) {
            long t0 = System.nanoTime();
            layer.run();
            long t1 = System.nanoTime();
            long repeats = Math.max(1, Math.round(layer.lastFlops() / s.sgemmFlops()));
            for (int r = 0; r < repeats; r++) {
              sgemm.run();
            }
            long t2 = System.nanoTime();
            if (stop.get()) {
              break;
            }
            layerSeconds += (t1 - t0) / 1e9;
            sgemmSeconds += (t2 - t1) / 1e9;
            layerFlops += layer.lastFlops();
            layerTokens += layer.lastTokens();
            sgemmRuns += repeats;
            pairs++;
          }
          if (pairs == 0) {
            throw new IllegalStateException("--seconds " + s.seconds() + " is shorter than "
                + "one layer batch and its sgemm products; give more");
          }
          return new Sample(sgemmSeconds, sgemmRuns * s.sgemmFlops(), layerSeconds, layerFlops,
              layerTokens);
        }));
      }
      try {
        ready.await();
        Thread.sleep((long) (s.seconds() * 1000));
      } catch (BrokenBarrierException e) {
        // a thread failed to set up; its exception comes out of its future below
      }
      stop.set(true);
      List<Sample> samples = new ArrayList<>();
      for (Future<Sample> f : futures) {
        samples.add(f.get());
      }
      return samples;
    } finally {
      pool.shutdownNow();
    }
  }

  /** The QKV projection's product, (N, E)·(E, 3E). */
  private static Runnable sgemmTask(Shape s) {
    int n = s.batchTokens();
    int e = s.width();
    Random random = new Random(1);
    float[] x = gaussian(random, n * e);
    float[] w = gaussian(random, 3 * e * e);
    float[] y = new float[n * 3 * e];
    return () -> RowMajorBlas.linear(n, e, 3 * e, x, 0, w, y, 0, false);
  }

  /**
   * One encoder layer over batches of whole sequences of the shape's lengths, taken in turn from
   * a starting sequence (wrapping around) until a batch holds {@code batch-tokens}, as a task
   * stacks a partition's rows.
   */
  private static final class LayerBatches implements Runnable {
    private final Shape shape;
    private final Encoder encoder;
    private final TokenBatch batch;
    private final float[] token;        // (E): every token's input; the values do not matter
    private int next;                   // the next sequence to take
    private double lastFlops;
    private int lastTokens;

    LayerBatches(Shape shape, ModelSettings settings, EncoderWeights weights, int first) {
      this.shape = shape;
      this.encoder = new Encoder(settings, weights);
      this.batch = new TokenBatch(shape.width(), shape.batchTokens());
      this.token = gaussian(new Random(3), shape.width());
      this.next = first;
    }

    @Override
    public void run() {
      int[] lengths = shape.lengths();
      batch.clear();
      lastFlops = 0;
      do {
        int t = lengths[next];
        next = (next + 1) % lengths.length;
        for (int p = 0; p < t; p++) {
          System.arraycopy(token, 0, batch.tokens(), batch.appendToken(p), shape.width());
        }
        batch.endSequence();
        lastFlops += t * shape.flopsPerToken(t);
      } while (batch.tokenCount() + lengths[next] <= shape.batchTokens());
      lastTokens = batch.tokenCount();
      encoder.forward(batch);
    }

    double lastFlops() {
      return lastFlops;
    }

    int lastTokens() {
      return lastTokens;
    }
  }

  private static ModelSettings layerSettings(Shape s) {
    return new ModelSettings(s.heads(), Architecture.encoder(s.activation(), 1e-12).build(),
        Window.GLOBAL,
        PositionalEncoding.NONE);
  }

  /** The reference encoder over one sequence, one thread: the baseline the fast kernel replaces. */
  static double[] naiveRate(Shape s) {
    ModelSettings settings = layerSettings(s);
    EncoderWeights weights = RandomModels.weights(new Random(2), 1, s.width(), s.ffn(), false, 0);
    int length = Math.min(s.lengths()[0], 32);
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
    return new double[] {tokensPerSecond, tokensPerSecond * s.flopsPerToken(length) / 1e9};
  }

  static float[] gaussian(Random random, int count) {
    float[] out = new float[count];
    for (int i = 0; i < count; i++) {
      out[i] = (float) random.nextGaussian();
    }
    return out;
  }
}
