package io.corpus.encoder.pipeline;

import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.TokenBatch;
import io.corpus.encoder.text.LateChunking;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;

/**
 * One late-chunked text in a task ({@link LateChunking}): its N positions' contextual states,
 * gathered from its windows as the batches that hold them are encoded, then one output row per
 * chunk. The states are N × E floats, held until the text's last window is encoded.
 */
final class LateDocument {
  private final int[] ids;                   // (N) the text's token ids, special tokens included
  private final String[] tokens;             // (N) their strings
  private final LateChunking.Plan plan;
  private final int[] chunkStarts;           // each chunk's text, in code points of the text given
  private final int[] chunkEnds;
  private float[] states;                    // (N, E), allocated by the first window

  /**
   * @param chunkStarts where each span's first text token starts in the text as given
   * @param chunkEnds where its last ends
   */
  LateDocument(int[] ids, String[] tokens, LateChunking.Plan plan, int[] chunkStarts,
      int[] chunkEnds) {
    this.ids = ids;
    this.tokens = tokens;
    this.plan = plan;
    this.chunkStarts = chunkStarts;
    this.chunkEnds = chunkEnds;
  }

  /** The windows to encode, as sequences the task appends one by one (their type ids all 0). */
  List<SequenceRead.Accepted> windows() {
    List<LateChunking.Window> windows = plan.windows();
    List<SequenceRead.Accepted> reads = new ArrayList<>(windows.size());
    for (int k = 0; k < windows.size(); k++) {
      LateChunking.Window w = windows.get(k);
      reads.add(new SequenceRead.Accepted(w.length(), slice(ids, w.start(), w.end()),
          Arrays.copyOfRange(tokens, w.start(), w.end()), null, false,
          new SequenceRead.Chunk(k, 0, 0, windows.size()), null, SequenceRead.Prompt.NONE));
    }
    return reads;
  }

  /** Keeps the states window {@code k} gives, from sequence b of the encoded batch. */
  void take(int k, TokenBatch batch, int b) {
    int width = batch.width();
    if (states == null) {
      states = new float[ids.length * width];
    }
    LateChunking.Window w = plan.windows().get(k);
    int first = batch.firstRow(b) + (w.keepFrom() - w.start());
    System.arraycopy(batch.tokens(), first * width, states, w.keepFrom() * width,
        (w.end() - w.keepFrom()) * width);
  }

  /** One row per chunk, in order, once every window is taken. */
  List<InternalRow> rows(InternalRow input, OutputRows output, EncoderModel model, int width) {
    List<LateChunking.Span> spans = plan.spans();
    List<InternalRow> rows = new ArrayList<>(spans.size());
    for (int i = 0; i < spans.size(); i++) {
      LateChunking.Span span = spans.get(i);
      rows.add(output.lateChunk(input, slice(ids, span.from(), span.to()),
          Arrays.copyOfRange(tokens, span.from(), span.to()),
          new SequenceRead.Chunk(i, chunkStarts[i], chunkEnds[i], spans.size()), states,
          span.from(), span.to() - span.from(), width, model));
    }
    states = null;
    return rows;
  }

  private static int[] slice(int[] values, int from, int to) {
    return Arrays.copyOfRange(values, from, to);
  }
}
