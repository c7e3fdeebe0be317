package io.corpus.encoder.pipeline;

import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.model.AttentionSink;
import io.corpus.encoder.model.Encoder;
import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.HeadImportance;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.TokenBatch;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.util.TaskCompletionListener;

/**
 * The task-side loop: pull rows until a batch holds {@code batchTokens} tokens, run the encoder
 * once over the batch, hand out one output row per input row (per window of a chunked text; a
 * long text's windows go into as many batches as they fill), repeat. Everything this function
 * holds is serializable settings and the model's handle; the source's reader (a tokenizer), the
 * encoder and its buffers are made per partition.
 */
final class PartitionEncoder implements FlatMapFunction<Iterator<InternalRow>, InternalRow> {
  private final WeightsHandle model;
  private final Precision precision;     // the model's products', known without fetching it
  private final ModelSettings settings;
  private final SequenceSource source;
  private final OutputRows output;
  private final AttentionOutputs attention;
  private final int batchTokens;
  private final boolean failOnInvalid;
  private final EncodeMetrics metrics;

  PartitionEncoder(WeightsHandle model, Precision precision, ModelSettings settings,
      SequenceSource source, OutputRows output, AttentionOutputs attention, int batchTokens,
      boolean failOnInvalid, EncodeMetrics metrics) {
    this.model = model;
    this.precision = precision;
    this.settings = settings;
    this.source = source;
    this.output = output;
    this.attention = attention;
    this.batchTokens = batchTokens;
    this.failOnInvalid = failOnInvalid;
    this.metrics = metrics;
  }

  @Override
  public Iterator<InternalRow> call(Iterator<InternalRow> rows) {
    metrics.noteExecutor(precision);
    // A split without rows (most splits of a file with one row group are) opens no reader and
    // allocates no batch: that is a tokenizer and 4 · batch-tokens · E bytes per task, zeroed.
    return rows.hasNext() ? new Batches(rows) : Collections.emptyIterator();
  }

  /** Lazily encodes the partition batch by batch. */
  private final class Batches implements Iterator<InternalRow> {
    private final Iterator<InternalRow> input;
    private final SequenceSource.Reader reader;
    private final Encoder encoder;
    private final TokenBatch batch;
    private final AttentionCollector collector;
    private final EncoderModel weights;
    private final List<InternalRow> batchRows = new ArrayList<>();
    private final List<SequenceRead.Accepted> batchReads = new ArrayList<>();
    private final List<LateDocument> batchLate = new ArrayList<>();   // null: not late-chunked
    private final ArrayDeque<InternalRow> ready = new ArrayDeque<>();
    private final boolean documentRows;
    private final List<InternalRow> windowRows = new ArrayList<>();
    // A chunked text whose windows are not all in a batch yet: its row, its windows, the next.
    private InternalRow chunkedRow;
    private SequenceRead.Chunks chunks;
    private int nextWindow;

    Batches(Iterator<InternalRow> input) {
      this.input = input;
      EncoderModel m = model.get();
      this.reader = source.open(m);
      TaskContext task = TaskContext.get();
      if (task != null) {
        task.addTaskCompletionListener((TaskCompletionListener) context -> reader.close());
      }
      // static embeddings have no layer: their tokens' rows, as looked up, are what is pooled
      this.encoder = m.encoder().layerCount() == 0 ? null
          : new Encoder(settings, m.encoder(), ExecutorCores.join());
      this.weights = m;
      this.documentRows = output.documentRows();
      this.batch = new TokenBatch(m.width(), batchTokens);
      this.collector = attention.any()
          ? new AttentionCollector(attention, m.encoder().layerCount(), settings.heads()) : null;
    }

    @Override
    public boolean hasNext() {
      while (ready.isEmpty() && (chunks != null || input.hasNext())) {
        encodeNextBatch();
      }
      return !ready.isEmpty();
    }

    @Override
    public InternalRow next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return ready.poll();
    }

    private void encodeNextBatch() {
      long readStart = System.nanoTime();
      batch.clear();
      batchRows.clear();
      batchReads.clear();
      batchLate.clear();
      int rowsFinished = 0;
      // a text may have no token (a static embedding's empty text): it still counts as one
      while ((chunks != null || input.hasNext()) && batch.tokenCount() < batchTokens
          && batch.sequenceCount() < batchTokens) {
        if (chunks != null) {
          rowsFinished += takeWindow();
          continue;
        }
        InternalRow row = input.next().copy();
        SequenceRead read = reader.read(row, batch);
        if (read instanceof SequenceRead.Accepted accepted) {
          batchRows.add(row);
          batchReads.add(accepted);
          batchLate.add(null);
          rowsFinished++;
          if (accepted.truncated()) {
            metrics.rowsTruncated().add(1);
          }
          if (accepted.prompt().alreadyHeld()) {
            metrics.rowsAlreadyPrompted().add(1);
          }
        } else if (read instanceof SequenceRead.Chunks windows) {
          chunkedRow = row;
          chunks = windows;
          nextWindow = 0;
          rowsFinished += windows.windows().isEmpty() ? finishChunks() : 0;
        } else if (failOnInvalid) {
          throw new InvalidRowException(describeId(row), (RejectRule.Rejection) read);
        } else {
          metrics.rowsSkipped().add(1);
          metrics.rowsDone().add(1);
        }
      }
      long start = System.nanoTime();
      metrics.readNanos().add(start - readStart);
      if (batchRows.isEmpty()) {
        metrics.rowsDone().add(rowsFinished);
        return;
      }
      HeadImportance.Input[] measured = null;      // the rows whose head importance is asked
      if (collector != null) {
        boolean[] kept = new boolean[batchRows.size()];
        measured = new HeadImportance.Input[kept.length];
        boolean byId = attention.enabled() || attention.rollout() || attention.importance();
        for (int b = 0; b < kept.length && byId; b++) {
          String id = describeId(batchRows.get(b));
          kept[b] = (attention.enabled() || attention.rollout()) && attention.keepsSequence(id);
          measured[b] = attention.measuresImportance(id) ? HeadImportance.Input.of(batch, b)
              : null;
        }
        collector.reset(batch, kept);
      }
      if (encoder != null) {
        encoder.forward(batch, collector == null ? AttentionSink.NONE : collector);
      }
      if (measured != null) {
        measureImportance(measured);
      }
      float[][] sparse = output.sparseVectors(batch, weights);
      long outputStart = System.nanoTime();
      metrics.forwardNanos().add(outputStart - start);
      for (int b = 0; b < batch.sequenceCount(); b++) {
        SequenceRead.Accepted read = batchReads.get(b);
        LateDocument late = batchLate.get(b);
        if (late != null) {   // a late-chunked text's window: its rows once its last is taken
          late.take(read.chunk().index(), batch, b);
          if (read.chunk().last()) {
            ready.addAll(late.rows(batchRows.get(b), output, weights, batch.width()));
          }
          continue;
        }
        InternalRow row = output.build(batchRows.get(b), read, batch, b, collector, weights,
            sparse == null ? null : sparse[b]);
        if (!documentRows || read.chunk() == null) {
          ready.add(row);
        } else {
          windowRows.add(row);   // a text's windows become one row once the last is encoded
          if (read.chunk().last()) {
            ready.add(output.mergeWindows(windowRows));
            windowRows.clear();
          }
        }
      }
      metrics.outputNanos().add(System.nanoTime() - outputStart);
      metrics.rowsDone().add(rowsFinished);
      metrics.tokensEncoded().add(batch.tokenCount());
      metrics.largestBatch().add((long) batch.tokenCount());
    }

    /**
     * Each measured sequence's head importances, into the collector: its pooled vector as the
     * row writes it, against the same with each head removed in turn, from its copied input.
     */
    private void measureImportance(HeadImportance.Input[] measured) {
      for (int b = 0; b < measured.length; b++) {
        if (measured[b] == null) {
          continue;
        }
        SequenceRead.Accepted read = batchReads.get(b);
        HeadImportance.PooledVector pool = (tokens, first, length) ->
            output.pooled(tokens, first, length, batch.width(), read, weights);
        collector.setImportance(b, HeadImportance.measure(encoder, measured[b],
            pool.of(batch.tokens(), batch.firstRow(b), batch.length(b)), pool, batchTokens));
      }
    }

    /**
     * Appends the chunked text's next window to the batch, an output row with the text's
     * columns; returns 1 when that was its last window (the row is finished with this batch).
     */
    private int takeWindow() {
      chunks.input().append(nextWindow, batch);
      batchRows.add(chunkedRow);
      batchReads.add(chunks.windows().get(nextWindow));
      batchLate.add(chunks.late());
      nextWindow++;
      return nextWindow == chunks.windows().size() ? finishChunks() : 0;
    }

    private int finishChunks() {
      chunks = null;
      chunkedRow = null;
      return 1;
    }

    private String describeId(InternalRow row) {
      InputColumns columns = source.columns();
      int id = columns.idOrdinal();
      return IdText.of(row, id, columns.idType());
    }
  }
}
