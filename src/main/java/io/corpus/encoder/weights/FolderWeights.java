package io.corpus.encoder.weights;

import io.corpus.encoder.model.EmbeddingWeights;
import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.Parameters;
import java.util.List;

/**
 * What a model folder's checkpoint gives the job.
 *
 * @param model the model: embeddings, layers, the heads asked for and the folder has, the steps
 *     to the pooled vector
 * @param leftOut tensors in the files that the job does not use (pooler, task heads), by their
 *     names in the files
 * @param parameters the model's parameters: its checkpoint's kept tensors by their headers
 *     ({@link WeightsMemory#parameters}, what {@code --check} prints before loading), and the
 *     modules read from files of their own (Dense, bge-m3's heads, a static table)
 */
public record FolderWeights(EncoderModel model, List<String> leftOut, long parameters) {
  public EmbeddingWeights embeddings() {
    return model.embeddings();
  }

  public EncoderWeights encoder() {
    return model.encoder();
  }
}
