package io.corpus.encoder.pipeline;

import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.model.Encoder;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.TokenBatch;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * The task-side loop: pull rows until a batch holds {@code batchTokens} tokens, run the encoder
 * once over the batch, hand out one output row per input row, repeat. Everything this function
 * holds is serializable settings and the weights' handle; the encoder and its buffers are made
 * per partition.
 */
final class PartitionEncoder implements FlatMapFunction<Iterator<InternalRow>, InternalRow> {
  private final WeightsHandle weights;
  private final ModelSettings settings;
  private final SequenceReader reader;
  private final OutputRows output;
  private final Pooling pooling;
  private final AttentionOutputs attention;
  private final int batchTokens;
  private final boolean failOnInvalid;
  private final InputColumns columns;
  private final EncodeMetrics metrics;

  PartitionEncoder(WeightsHandle weights, ModelSettings settings, InputColumns columns,
      SequenceReader reader, OutputRows output, Pooling pooling, AttentionOutputs attention,
      int batchTokens, boolean failOnInvalid, EncodeMetrics metrics) {
    this.weights = weights;
    this.settings = settings;
    this.columns = columns;
    this.reader = reader;
    this.output = output;
    this.pooling = pooling;
    this.attention = attention;
    this.batchTokens = batchTokens;
    this.failOnInvalid = failOnInvalid;
    this.metrics = metrics;
  }

  @Override
  public Iterator<InternalRow> call(Iterator<InternalRow> rows) {
    return new Batches(rows);
  }

  /** Lazily encodes the partition batch by batch. */
  private final class Batches implements Iterator<InternalRow> {
    private final Iterator<InternalRow> input;
    private final Encoder encoder;
    private final TokenBatch batch;
    private final AttentionCollector collector;
    private final List<InternalRow> batchRows = new ArrayList<>();
    private final ArrayDeque<InternalRow> ready = new ArrayDeque<>();

    Batches(Iterator<InternalRow> input) {
      this.input = input;
      EncoderWeights w = weights.get();
      this.encoder = new Encoder(settings, w);
      this.batch = new TokenBatch(w.width(), batchTokens);
      this.collector = attention.any()
          ? new AttentionCollector(attention, w.layerCount(), settings.heads()) : null;
      metrics.noteExecutor();
    }

    @Override
    public boolean hasNext() {
      if (ready.isEmpty() && input.hasNext()) {
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
      while (input.hasNext() && batch.tokenCount() < batchTokens) {
        InternalRow row = input.next().copy();
        RejectRule.Rejection rejection = reader.read(row, batch);
        if (rejection == null) {
          batchRows.add(row);
        } else if (failOnInvalid) {
          throw new InvalidRowException(describeId(row), rejection);
        } else {
          metrics.rowsSkipped().add(1);
        }
      }
      long start = System.nanoTime();
      metrics.readNanos().add(start - readStart);
      if (batchRows.isEmpty()) {
        return;
      }
      if (collector != null) {
        boolean[] kept = new boolean[batchRows.size()];
        for (int b = 0; b < kept.length; b++) {
          kept[b] = (attention.enabled() || attention.rollout())
              && attention.keepsSequence(describeId(batchRows.get(b)));
        }
        collector.reset(batch, kept);
      }
      encoder.forward(batch, collector);
      long outputStart = System.nanoTime();
      metrics.forwardNanos().add(outputStart - start);
      int width = batch.width();
      for (int b = 0; b < batch.sequenceCount(); b++) {
        InternalRow row = batchRows.get(b);
        float[] pooled = pooling.pool(batch.tokens(), batch.firstRow(b), batch.length(b), width);
        ready.add(output.build(row, batch, b, reader.length(row), pooled, collector));
      }
      metrics.outputNanos().add(System.nanoTime() - outputStart);
      metrics.sequencesEncoded().add(batch.sequenceCount());
      metrics.tokensEncoded().add(batch.tokenCount());
    }

    private String describeId(InternalRow row) {
      int id = columns.idOrdinal();
      return row.isNullAt(id) ? "null" : String.valueOf(row.get(id, columns.idType()));
    }
  }
}
