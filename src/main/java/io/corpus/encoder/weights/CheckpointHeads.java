package io.corpus.encoder.weights;

import static io.corpus.encoder.weights.WeightsLoader.LM_HEAD;

import com.fasterxml.jackson.databind.JsonNode;
import io.corpus.encoder.kernel.Matrix;
import io.corpus.encoder.model.ClassifierHead;
import io.corpus.encoder.model.EmbeddingWeights;
import io.corpus.encoder.model.Head;
import io.corpus.encoder.model.SpladeHead;
import io.corpus.encoder.model.TokenClassifierHead;
import io.corpus.encoder.weights.WeightsLoader.Source;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The heads a model folder's checkpoint holds for the encoder's final states, read beside its
 * layers: a sequence classifier's (or, for a language model read as a reranker, the yes and no
 * rows of its lm_head), a token classifier's, and SPLADE's masked-LM head when the job asks for
 * it. Each is checked against config.json's labels before a tensor is read.
 */
final class CheckpointHeads {
  private CheckpointHeads() {}

  /**
   * The folder's heads, in order: its sequence classifier (or reranker), its token classifier,
   * SPLADE's head when {@code splade}; read from {@code source}, the checkpoint {@code file}'s
   * tensors; {@code embeddings}, the model's, lend their table to a tied decoder.
   */
  static List<Head> read(Checkpoint file, Source source, ModelFolder model,
      EmbeddingWeights embeddings, boolean splade) {
    List<Head> heads = new ArrayList<>();
    // a language model read as a reranker has no head of its own: its yes and no rows make one
    if (model.reranker() != Reranker.NONE
        && !file.contains(model.family().names().heads().classifierOutput())) {
      heads.add(rerankerHead(file, source, model, embeddings));
    } else {
      model.classifier().filter(c -> !c.perToken())
          .map(c -> classifierHead(file, source, model, c)).ifPresent(heads::add);
    }
    model.classifier().filter(ModelFolder.Classifier::perToken)
        .map(c -> tokenHead(file, source, model, c)).ifPresent(heads::add);
    if (splade) {
      heads.add(spladeHead(file, source, model, embeddings));
    }
    return heads;
  }

  /**
   * The family's sequence-classification head (BERT: pooler and classifier; XLM-RoBERTa:
   * classifier.dense and classifier.out_proj); its output rows must be the labels config.json
   * names.
   */
  private static ClassifierHead classifierHead(Checkpoint file, Source source, ModelFolder model,
      ModelFolder.Classifier classifier) {
    HeadTensors heads = model.family().names().heads();
    return model.family().head(source, model,
        labelRows(file, heads.classifier(), heads.classifierOutput(), classifier, "sequence"));
  }

  /**
   * A causal language model read as a reranker: one row, lm_head["yes"] − lm_head["no"] (the
   * word embedding table's rows when the checkpoint ties lm_head to it and leaves it out), the
   * ids looked up in tokenizer.json's vocabulary as transformers' convert_tokens_to_ids does.
   */
  private static ClassifierHead rerankerHead(Checkpoint file, Source source, ModelFolder model,
      EmbeddingWeights embeddings) {
    Reranker reranker = model.reranker();
    Path tokenizer = model.tokenizer().orElseThrow();
    JsonNode tokenizerJson = ModelFolder.json(tokenizer);
    int e = model.shape().width();
    int v = embeddings.vocabularySize();
    int yes = vocabularyId(tokenizerJson, reranker.yes(), tokenizer);
    int no = vocabularyId(tokenizerJson, reranker.no(), tokenizer);
    float[] yesRow;
    float[] noRow;
    if (file.contains(LM_HEAD)) {            // the two rows, not a (V, E) table of gigabytes
      yesRow = source.takeRow(LM_HEAD, yes, v, e);
      noRow = source.takeRow(LM_HEAD, no, v, e);
    } else {
      yesRow = new float[e];
      noRow = new float[e];
      embeddings.word().row(yes, yesRow, 0);
      embeddings.word().row(no, noRow, 0);
    }
    float[] row = new float[e];
    for (int i = 0; i < e; i++) {
      row[i] = yesRow[i] - noRow[i];
    }
    ModelFolder.Classifier classifier = model.classifier().orElseThrow();
    return ClassifierHead.score(row, classifier.labels(), classifier.scoring(), -1);
  }

  private static int vocabularyId(JsonNode tokenizerJson, String token, Path tokenizer) {
    int id = ModelFolder.tokenId(tokenizerJson, token);
    if (id < 0) {
      throw new WeightsException(tokenizer + " has no token '" + token + "' in its vocabulary, "
          + "which the reranker's score reads");
    }
    return id;
  }

  /**
   * The labels a classifier head gives, once its tensors ({@code names}, among them its output
   * layer {@code out}, (labels, E)) are all in the checkpoint and that layer has a row for each
   * label config.json names.
   */
  private static int labelRows(Checkpoint file, List<String> names, String out,
      ModelFolder.Classifier classifier, String kind) {
    for (String name : names) {
      if (!file.contains(name)) {
        throw new WeightsException("config.json names a " + kind + " classifier, but tensor "
            + name + " is missing from " + file.path());
      }
    }
    long rows = file.info(out).shape()[0];
    if (rows != classifier.labels().size()) {
      throw new WeightsException("Tensor " + out + " has " + rows + " rows but config.json "
          + "has " + classifier.labels().size() + " labels (num_labels / id2label): "
          + file.path());
    }
    return (int) rows;
  }

  /**
   * The masked-LM head and the folder's SpladePooling: the decoder is the word embedding table
   * when the checkpoint leaves it out (tied, as Hugging Face saves it).
   */
  private static SpladeHead spladeHead(Checkpoint file, Source source, ModelFolder model,
      EmbeddingWeights embeddings) {
    List<String> t = model.family().names().heads().mlm();
    int e = model.shape().width();
    int v = embeddings.vocabularySize();
    for (int i : new int[] {0, 1, 2, 3, 5}) {
      if (!file.contains(t.get(i))) {
        throw new WeightsException("SPLADE needs the masked-language-model head, but tensor "
            + t.get(i) + " is missing from " + file.path() + " (a "
            + model.family().name() + " folder saved with its …ForMaskedLM head has it)");
      }
    }
    float[] decoder = file.contains(t.get(4)) ? source.take(t.get(4), v, e)
        : embeddings.word().floats();
    float[] bias = source.take(t.get(5), v);
    for (String alias : t.subList(6, t.size())) {
      if (file.contains(alias)) {
        source.take(alias, v);   // the same bias under the decoder's name
      }
    }
    ModelFolder.Splade pooling = model.splade();
    return new SpladeHead(Matrix.of(source.take(t.get(0), e, e), e, e), source.take(t.get(1), e),
        model.architecture().activation(), source.take(t.get(2), e),
        source.take(t.get(3), e), model.architecture().norms().eps(), Matrix.of(decoder, v, e),
        bias, pooling.sum(), pooling.twiceLog());
  }

  /** The family's token-classification head; its output rows must be config.json's labels. */
  private static TokenClassifierHead tokenHead(Checkpoint file, Source source, ModelFolder model,
      ModelFolder.Classifier classifier) {
    List<String> names = model.family().names().heads().token();
    return model.family().tokenHead(source, model,
        labelRows(file, names, names.get(names.size() - 2), classifier, "token"));
  }
}
