package io.corpus.encoder.bench;

import io.corpus.encoder.cli.SparkSessions;
import io.corpus.encoder.kernel.RowMajorBlas;
import io.corpus.encoder.model.Encoder;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.TokenBatch;
import io.corpus.encoder.model.TokenEmbeddings;
import io.corpus.encoder.text.TextTokenizer;
import io.corpus.encoder.weights.FolderWeights;
import io.corpus.encoder.weights.ModelFamily;
import io.corpus.encoder.weights.ModelFolder;
import io.corpus.encoder.weights.WeightsLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;

/**
 * {@code jobs/benchmarks/bench-text --texts DIR/texts.parquet [--model DIR] [--threads 2]
 * [--batch-tokens 4096]}: the text-to-sentence-vector pipeline without Spark around it: the
 * folder's tokenizer, the embedding layer, the encoder over batches that stack the tokens of many
 * texts, mean pooling, L2 normalization; each thread takes every n-th text. Prints the time of
 * that part (tokenizing included) and tokens/s, to set beside {@code jobs/benchmarks/bench_text_pytorch.py}
 * on the same texts' ids; the texts are read first, untimed.
 */
public final class BenchText {
  private BenchText() {}

  public static void main(String[] args) throws Exception {
    long start = System.nanoTime();
    Path texts = null;
    Path model = Path.of("..", "shared", "models", "all-MiniLM-L6-v2");
    int threads = 2;
    int batchTokens = 4096;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--texts" -> texts = Path.of(args[++i]);
        case "--model" -> model = Path.of(args[++i]);
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--batch-tokens" -> batchTokens = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; usage: "
            + "jobs/benchmarks/bench-text --texts FILE [--model DIR] [--threads N] [--batch-tokens N]");
      }
    }
    if (texts == null) {
      throw new IllegalArgumentException("--texts FILE is required (jobs/samples/make-text-corpus)");
    }
    List<String> all;
    SparkSession spark = SparkSessions.forJob("bench-text");
    try {
      all = spark.read().parquet(texts.toString()).select("text").as(Encoders.STRING())
          .collectAsList();
    } finally {
      spark.stop();
    }
    ModelFolder folder = ModelFolder.read(model);
    FolderWeights weights = WeightsLoader.load(folder);
    ModelFamily.Shape shape = folder.shape();
    System.out.printf("model %s: %d layers, E=%d, H=%d, F=%d; %,d texts; BLAS %s%n",
        folder.folder().getFileName(), shape.layers(), shape.width(), shape.heads(),
        shape.ffnWidth(), all.size(), RowMajorBlas.implementation());
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long t0 = System.nanoTime();
    List<Future<long[]>> parts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int first = t;
      int stride = threads;
      int batchSize = batchTokens;
      parts.add(pool.submit(() -> encode(folder, weights, all, first, stride, batchSize)));
    }
    long tokens = 0;
    long checksum = 0;
    for (Future<long[]> part : parts) {
      tokens += part.get()[0];
      checksum += part.get()[1];
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    pool.shutdown();
    System.out.printf("java: %,d texts, %,d tokens, batches of %d tokens, %d threads: %.1f s "
        + "(%,.0f tokens/s; tokenizing, encoding, pooling; %d vectors of norm 1)%n", all.size(),
        tokens, batchTokens, threads, seconds, tokens / seconds, checksum);
    System.out.printf("RESULT java_encode_s=%.2f java_process_s=%.2f tokens=%d%n", seconds,
        (System.nanoTime() - start) / 1e9, tokens);
  }

  /** Encodes texts first, first + stride, ...; returns {tokens, vectors of norm 1}. */
  private static long[] encode(ModelFolder folder, FolderWeights weights, List<String> texts,
      int first, int stride, int batchTokens) {
    TokenEmbeddings embeddings = new TokenEmbeddings(weights.embeddings(),
        folder.architecture().norms().eps());
    Encoder encoder = new Encoder(folder.settings(), weights.encoder());
    TokenBatch batch = new TokenBatch(folder.shape().width(), batchTokens);
    long tokens = 0;
    long unit = 0;
    try (TextTokenizer tokenizer = TextTokenizer.open(folder.tokenizer().orElseThrow(),
        folder.maxTokens())) {
      for (int i = first; i < texts.size(); i += stride) {
        embeddings.append(tokenizer.encode(texts.get(i)).ids(), batch);
        if (batch.tokenCount() >= batchTokens || i + stride >= texts.size()) {
          encoder.forward(batch);
          for (int b = 0; b < batch.sequenceCount(); b++) {
            float[] v = Pooling.MEAN.pool(batch.tokens(), batch.firstRow(b), batch.length(b),
                folder.shape().width());
            Pooling.normalize(v);
            double norm = 0;
            for (float x : v) {
              norm += x * x;
            }
            unit += Math.abs(norm - 1) < 1e-4 ? 1 : 0;
          }
          tokens += batch.tokenCount();
          batch.clear();
        }
      }
    }
    return new long[] {tokens, unit};
  }
}
