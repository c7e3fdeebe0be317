package io.corpus.encoder.testing;

import io.corpus.encoder.model.AttentionSink;
import io.corpus.encoder.model.Encoder;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.TokenBatch;
import java.util.List;

/**
 * Runs {@link Encoder} over whole sequences in one batch, without Spark, and returns outputs in the
 * fixtures' layout: (T, E) with zero rows at padding and [L][H][T][T] maps with zero rows and
 * columns at padding.
 */
public final class PlainRunner {
  /** One sequence's outputs. */
  public record Output(double[][] embeddings, double[][][][] attention) {}

  private PlainRunner() {}

  public static Output[] run(ModelSettings settings, EncoderWeights weights,
      List<GoldenCase.InputRow> rows, int batchLimit) {
    return run(new Encoder(settings, weights), rows, batchLimit, true);
  }

  /** Runs {@code encoder}; without {@code maps} no sink is passed and the maps stay null. */
  public static Output[] run(Encoder encoder, List<GoldenCase.InputRow> rows, int batchLimit,
      boolean maps) {
    Output[] outputs = new Output[rows.size()];
    int start = 0;
    while (start < rows.size()) {
      int end = Math.min(rows.size(), start + batchLimit);
      runBatch(encoder, rows.subList(start, end), outputs, start, maps);
      start = end;
    }
    return outputs;
  }

  private static void runBatch(Encoder encoder, List<GoldenCase.InputRow> rows, Output[] outputs,
      int firstOutput, boolean withMaps) {
    EncoderWeights weights = encoder.weights();
    int width = weights.width();
    int heads = encoder.settings().heads();
    int layers = weights.layerCount();
    TokenBatch batch = new TokenBatch(width, 4);
    for (GoldenCase.InputRow row : rows) {
      for (int t = 0; t < row.embeddings().length; t++) {
        if (row.mask() == null || row.mask()[t] == 1) {
          int offset = batch.appendToken(t);
          System.arraycopy(row.embeddings()[t], 0, batch.tokens(), offset, width);
        }
      }
      batch.endSequence();
    }
    double[][][][][] maps = new double[rows.size()][layers][heads][][];
    for (int b = 0; b < rows.size(); b++) {
      int t = rows.get(b).embeddings().length;
      for (int l = 0; l < layers; l++) {
        for (int h = 0; h < heads; h++) {
          maps[b][l][h] = new double[t][t];
        }
      }
    }
    encoder.forward(batch, !withMaps ? AttentionSink.NONE : new AttentionSink() {
      @Override
      public boolean wantsLayer(int layer) {
        return true;
      }

      @Override
      public void accept(int layer, int b, int head, float[] w, int offset, int n) {
        int first = batch.firstRow(b);
        for (int i = 0; i < n; i++) {
          for (int j = 0; j < n; j++) {
            maps[b][layer][head][batch.position(first + i)][batch.position(first + j)] =
                w[offset + i * n + j];
          }
        }
      }
    });
    for (int b = 0; b < rows.size(); b++) {
      double[][] out = new double[rows.get(b).embeddings().length][width];
      int first = batch.firstRow(b);
      for (int r = 0; r < batch.length(b); r++) {
        for (int e = 0; e < width; e++) {
          out[batch.position(first + r)][e] = batch.tokens()[(first + r) * width + e];
        }
      }
      outputs[firstOutput + b] = new Output(out, withMaps ? maps[b] : null);
    }
  }
}
