package io.corpus.encoder.weights;

import io.corpus.encoder.model.ClassifierHead;
import io.corpus.encoder.model.DenseLayer;
import io.corpus.encoder.model.EmbeddingWeights;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.LatentAttention;
import io.corpus.encoder.model.LexicalHead;
import io.corpus.encoder.model.MultiVectorHead;
import io.corpus.encoder.model.SpladeHead;
import io.corpus.encoder.model.TokenClassifierHead;
import java.util.List;

/**
 * What a model folder's checkpoint gives the job.
 *
 * @param embeddings the embedding layer (token ids to the first layer's input)
 * @param encoder the encoder layers
 * @param head the sequence-classification head, or null when the folder has none
 * @param tokenHead the token-classification head, or null when the folder has none
 * @param splade the masked-LM head and SPLADE pooling, or null when not asked for
 * @param leftOut tensors in the files that the job does not use (pooler, task heads), by their
 *     names in the files
 * @param dense the sentence-transformers Dense modules after pooling, in order
 * @param lexical bge-m3's lexical weights ({@code sparse_linear.pt}), or null when not asked for
 * @param multiVector its ColBERT projection ({@code colbert_linear.pt}), or null when not asked
 *     for
 */
public record FolderWeights(EmbeddingWeights embeddings, EncoderWeights encoder,
    ClassifierHead head, TokenClassifierHead tokenHead, SpladeHead splade, List<String> leftOut,
    List<DenseLayer> dense, LexicalHead lexical, MultiVectorHead multiVector,
    LatentAttention latent) {}
