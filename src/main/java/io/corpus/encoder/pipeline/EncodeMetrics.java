package io.corpus.encoder.pipeline;

import io.corpus.encoder.kernel.Elementwise;
import io.corpus.encoder.kernel.OneDnn;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.kernel.RowMajorBlas;
import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.util.CollectionAccumulator;
import org.apache.spark.util.LongAccumulator;

/**
 * Counters the encoder's tasks add to. Read on the driver after an action; a retried task may add
 * twice, so the run summary counts committed output, and these serve progress and checks.
 */
public final class EncodeMetrics implements Serializable {
  private final LongAccumulator rowsDone;
  private final LongAccumulator tokensEncoded;
  private final MaxAccumulator largestBatch = new MaxAccumulator();
  private final LongAccumulator rowsSkipped;
  private final LongAccumulator rowsTruncated;
  private final LongAccumulator rowsAlreadyPrompted;
  private final LongAccumulator forwardNanos;
  private final LongAccumulator readNanos;
  private final LongAccumulator outputNanos;
  private final CollectionAccumulator<String> executors;

  public EncodeMetrics(SparkContext sc) {
    this.rowsDone = sc.longAccumulator("encoder.rows-done");
    this.tokensEncoded = sc.longAccumulator("encoder.tokens");
    sc.register(largestBatch, "encoder.largest-batch-tokens");
    this.rowsSkipped = sc.longAccumulator("encoder.rows-skipped");
    this.rowsTruncated = sc.longAccumulator("encoder.rows-truncated");
    this.rowsAlreadyPrompted = sc.longAccumulator("encoder.rows-already-prompted");
    this.forwardNanos = sc.longAccumulator("encoder.forward-nanos");
    this.readNanos = sc.longAccumulator("encoder.read-nanos");
    this.outputNanos = sc.longAccumulator("encoder.output-nanos");
    this.executors = sc.collectionAccumulator("encoder.executors");
  }

  /**
   * Records, from a task, which executor ran it and with what native code: the BLAS, the
   * element-wise kernels and, for weight products in another precision, the library and the
   * instruction set they dispatched to.
   */
  void noteExecutor(Precision precision) {
    SparkEnv env = SparkEnv.get();
    String id = env == null ? "driver" : env.executorId();
    String threads = System.getenv("OPENBLAS_NUM_THREADS");
    executors.add(id + "\t" + RowMajorBlas.implementation() + ", "
        + Elementwise.INSTANCE.describe() + ", OPENBLAS_NUM_THREADS="
        + (threads == null ? "unset" : threads)
        + (precision == Precision.FLOAT32 ? "" : ", " + precision.configName() + " products on "
        + OneDnn.describe()));
  }

  /**
   * Executor id to what its tasks ran on: the BLAS class, the element-wise kernels and the
   * OpenBLAS thread count; "driver" in local mode.
   */
  public Map<String, String> executors() {
    Map<String, String> byId = new TreeMap<>();
    for (String entry : executors.value()) {
      String[] parts = entry.split("\t", 2);
      byId.put(parts[0], parts[1]);
    }
    return byId;
  }

  /**
   * Input rows finished: every sequence of theirs through the forward pass (all the windows of
   * a chunked text), or set aside. What progress counts.
   */
  public LongAccumulator rowsDone() {
    return rowsDone;
  }

  /** Real tokens run through the forward pass. */
  public LongAccumulator tokensEncoded() {
    return tokensEncoded;
  }

  /**
   * The most tokens one forward pass held: what a task's buffers grew to (about 4 · tokens ·
   * (6E + F) bytes), at most batch-tokens plus one sequence.
   */
  public MaxAccumulator largestBatch() {
    return largestBatch;
  }

  /** Time the tasks spent in the forward pass, summed over tasks. */
  public LongAccumulator forwardNanos() {
    return forwardNanos;
  }

  /** Time the tasks spent taking rows from the reader and checking and batching them. */
  public LongAccumulator readNanos() {
    return readNanos;
  }

  /** Time the tasks spent pooling and building output rows (not writing them). */
  public LongAccumulator outputNanos() {
    return outputNanos;
  }

  /** Token ids or texts cut to the token limit (on-too-long = truncate). */
  public LongAccumulator rowsTruncated() {
    return rowsTruncated;
  }

  /**
   * Rows encoded whose text already began with a prompt of the folder (or a label of a
   * reranker's template) where the job puts one before it.
   */
  public LongAccumulator rowsAlreadyPrompted() {
    return rowsAlreadyPrompted;
  }

  /** Invalid rows dropped under {@code handleInvalid = skip}. */
  public LongAccumulator rowsSkipped() {
    return rowsSkipped;
  }
}
