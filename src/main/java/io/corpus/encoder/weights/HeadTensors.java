package io.corpus.encoder.weights;

import java.util.List;

/**
 * Where a family's checkpoints keep the heads the job reads (names after the task prefix, as the
 * family's Hugging Face classes save them): data on the family's {@link ModelFamily.Names}.
 *
 * @param classifier the sequence classifier's: a dense layer's weight (E, E) and bias, then the
 *     output layer (labels, E) and its bias; a decoder's {@code score.weight} alone; empty when
 *     the job reads none for the family
 * @param classifierOutput the output layer among them, whose rows must be config.json's labels;
 *     "" when there is none
 * @param token the token classifier's, its output layer (labels, E) and bias last; empty when the
 *     job reads none
 * @param mlm the masked-language-model head's, for SPLADE: the transform's weight (E, E) and bias,
 *     its norm's scale and shift, the decoder's weight (V, E), absent when tied to the word
 *     embeddings, and bias (V); then names that may hold the same bias again. Empty when the job
 *     reads none for the family
 */
record HeadTensors(List<String> classifier, String classifierOutput, List<String> token,
    List<String> mlm) {
  /** Most families' token classifier: one linear layer, {@code classifier}. */
  private static final List<String> LINEAR = List.of("classifier.weight", "classifier.bias");

  /** No head read. */
  static final HeadTensors NONE = new HeadTensors(List.of(), "", List.of(), List.of());

  HeadTensors {
    classifier = List.copyOf(classifier);
    token = List.copyOf(token);
    mlm = List.copyOf(mlm);
  }

  /**
   * A sequence classifier of these four tensors (dense weight and bias, output weight and bias),
   * and the token classifier most families have, {@code classifier}.
   */
  static HeadTensors classifier(String denseWeight, String denseBias, String outWeight,
      String outBias) {
    return new HeadTensors(List.of(denseWeight, denseBias, outWeight, outBias), outWeight, LINEAR,
        List.of());
  }

  /** A decoder's: {@code output} alone classifies, and no token classifier is read. */
  static HeadTensors score(String output) {
    return new HeadTensors(List.of(output), output, List.of(), List.of());
  }

  /** The prefixes the sequence classifier's tensors are under ({@code pooler.}, {@code score.}). */
  List<String> classifierPrefixes() {
    return prefixes(classifier);
  }

  /** The prefixes the token classifier's tensors are under ({@code classifier.}). */
  List<String> tokenPrefixes() {
    return prefixes(token);
  }

  private static List<String> prefixes(List<String> tensors) {
    return tensors.stream().map(t -> t.substring(0, t.indexOf('.') + 1)).distinct().toList();
  }

  /** The token classifier's tensors when {@code perToken}, else the sequence classifier's. */
  List<String> ofClassifier(boolean perToken) {
    return perToken ? token : classifier;
  }

  /** These, with the masked-language-model head's {@code tensors} ({@link #mlm}). */
  HeadTensors withMlm(String... tensors) {
    return new HeadTensors(classifier, classifierOutput, token, List.of(tensors));
  }

  /** These, with the token classifier the sequence classifier's tensors. */
  HeadTensors withTokenAsClassifier() {
    return new HeadTensors(classifier, classifierOutput, classifier, mlm);
  }

  /** These without the sequence classifier (its output's name kept, for a reranker's look). */
  HeadTensors withoutClassifier() {
    return new HeadTensors(List.of(), classifierOutput, token, mlm);
  }
}
