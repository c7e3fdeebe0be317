package io.corpus.encoder.io;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * What a job did, written as {@code run-summary.json}: counts read back from the committed
 * tables, the time, the BLAS implementation and the model settings.
 *
 * @param rowsRead rows in the input
 * @param rowsWritten input rows written to {@code embeddings/}
 * @param chunksWritten rows in {@code embeddings/}: rowsWritten, or, with texts cut into
 *     windows (on-too-long = chunk), one per window
 * @param rowsRejected rows in {@code rejects/}
 * @param duplicateIds ids that more than one written row carries (a join on the id multiplies)
 * @param rowsRepeatingAnId written rows beyond the first of each such id
 * @param rejectedByRule rejected rows per rule name
 * @param rowsTruncated token ids or texts cut to {@code input.max-tokens} (on-too-long =
 *     truncate); counted by the tasks (a retried task may count twice)
 * @param rowsAlreadyPrompted rows this run encoded whose text already began with a prompt of
 *     the folder (or a reranker's template label) where the job puts one before every text;
 *     counted by the tasks as {@code rowsTruncated} is; null (left out) where nothing goes
 *     before the texts
 * @param tokens real tokens that went through the encoder
 * @param largestBatchTokens the most tokens one forward pass of a task held (batch-tokens plus at
 *     most one sequence): what the task's buffers grew to
 * @param seconds wall time of the job, start-up included
 * @param forwardSeconds time the tasks spent in the encoder's forward pass, summed over tasks
 * @param phases wall seconds per phase of the job, in order: jvm (start-up before main), start
 *     (settings, weights, Spark session), plan (footers, splits, a shuffle stage if any), encode
 *     (the tasks that read, encode and write), rejects, report, count (of the written tables)
 * @param taskSeconds task run time summed over tasks: all, and its parts read (rows taken and
 *     checked), forward, output_rows (pooling, building rows), write_and_other (the Parquet
 *     writer, shuffles, the rejects pass)
 * @param input how the input was split: row groups, splits, balance, how rows were spread
 * @param blas class name of the BLAS implementation the driver uses
 * @param executors executor id to the BLAS, element-wise kernels and BLAS threads its tasks used
 * @param model the model settings and weights, as the job understood them
 * @param settings every setting that shapes the rows written, by key, as the job used it (auto
 *     choices resolved; a model folder's architecture as its config.json gives it)
 * @param outputs where the output went, the width of its pooled vectors, its attention outputs
 * @param reuseKey what the rows' outputs depend on (the model's fingerprint, the settings that
 *     shape them), which an update ({@code output.mode = update}) must find unchanged
 * @param update with {@code output.mode = update}: {@code rows_encoded} (rows of the input sent
 *     to the encoder), {@code rows_reused} (rows that took the earlier output's), and
 *     {@code rows_dropped} (ids of the earlier output no longer in the input); else null
 * @param resume the pieces of the output kept for a resumed run: the seconds of work each aims at,
 *     {@code pieces}, {@code pieces_reused} and {@code rows_reused} (kept by a killed run and
 *     not computed again), {@code resumed_from} (that run's staging folder) and a {@code note};
 *     or, without pieces, {@code no_pieces} saying why
 */
public record RunSummary(
    long rowsRead,
    long rowsWritten,
    long chunksWritten,
    long rowsRejected,
    long duplicateIds,
    long rowsRepeatingAnId,
    Map<String, Long> rejectedByRule,
    long rowsTruncated,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long rowsAlreadyPrompted,
    long tokens,
    long largestBatchTokens,
    double seconds,
    double forwardSeconds,
    Map<String, Double> phases,
    Map<String, Double> taskSeconds,
    SplitPlan input,
    String blas,
    Map<String, String> executors,
    Map<String, Object> model,
    Map<String, Object> settings,
    Map<String, Object> outputs,
    Map<String, Object> reuseKey,
    @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, Long> update,
    Map<String, Object> resume) {

  private static final ObjectMapper JSON = new ObjectMapper()
      .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
      .enable(SerializationFeature.INDENT_OUTPUT);

  /** Whether every input row is accounted for. */
  @JsonIgnore
  public boolean balanced() {
    return rowsRead == rowsWritten + rowsRejected;
  }

  public String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public void write(String path, Configuration hadoopConf) {
    Path p = new Path(path);
    try (OutputStream out = p.getFileSystem(hadoopConf).create(p, true)) {
      out.write(toJson().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + path, e);
    }
  }

  public static RunSummary read(java.nio.file.Path path) throws IOException {
    return JSON.readValue(path.toFile(), RunSummary.class);
  }
}
