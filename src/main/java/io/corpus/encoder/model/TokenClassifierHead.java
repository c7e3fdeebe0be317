package io.corpus.encoder.model;

import java.util.List;

/**
 * A token-classification head, as Hugging Face's {@code BertForTokenClassification},
 * {@code XLMRobertaForTokenClassification} and {@code DistilBertForTokenClassification} put it on
 * the encoder: a linear layer on every token's final state (dropout is off at inference);
 * {@code ModernBertForTokenClassification} first runs each state through its prediction head,
 * a dense layer, GELU and a layer norm ({@link ClassifierHead.Form}). The token-classification
 * pipeline then takes the softmax of each token's logits.
 *
 * <pre>
 *   x_t      = norm(act(W_d · h_t + b_d))     ModernBERT only; W_d (E, E)
 *   logits_t = W · x_t + b                    W (L, E): L labels
 *   scores_t = softmax(logits_t)
 * </pre>
 *
 * Computed in double precision: L·E multiply-adds per token (and E² with a dense layer).
 *
 * @param denseWeight W_d, (E, E) row-major; empty without a dense layer (the form's activation
 *     is NONE)
 * @param denseBias b_d, (E); empty with denseWeight
 * @param form whether a dense layer comes first and what follows it (its read is not read)
 * @param weight W, (L, E)
 * @param bias b, (L)
 * @param labels the label of each logit (L)
 */
public record TokenClassifierHead(float[] denseWeight, float[] denseBias,
    ClassifierHead.Form form, float[] weight, float[] bias, List<String> labels)
    implements Head {

  public TokenClassifierHead {
    labels = List.copyOf(labels);
    int width = weight.length / Math.max(1, labels.size());
    if (weight.length != labels.size() * width || bias.length != labels.size()
        || denseWeight.length != (dense(form) ? width * width : 0)) {
      throw new IllegalArgumentException("Token classifier head shapes disagree: classifier "
          + weight.length + " and " + bias.length + " for " + labels.size() + " labels, dense "
          + denseWeight.length + " for E = " + width);
    }
  }

  /** A plain linear layer on every token. */
  public static TokenClassifierHead linear(float[] weight, float[] bias, List<String> labels) {
    return new TokenClassifierHead(new float[0], new float[0], ClassifierHead.Form.LINEAR,
        weight, bias, labels);
  }

  private static boolean dense(ClassifierHead.Form form) {
    return form.activation() != ClassifierHead.DenseActivation.NONE;
  }

  public int labelCount() {
    return labels.size();
  }

  /**
   * Every token's label probabilities, (T, L) row-major, for the {@code length} states (T, E)
   * that start at row {@code firstRow} of {@code states}.
   */
  public float[] scores(float[] states, int firstRow, int length, int width) {
    int l = labels.size();
    float[] scores = new float[length * l];
    double[] x = new double[width];
    double[] logits = new double[l];
    for (int t = 0; t < length; t++) {
      int row = (firstRow + t) * width;
      for (int i = 0; i < width; i++) {
        x[i] = states[row + i];
      }
      if (dense(form)) {
        x = transform(x, width);
      }
      double max = Double.NEGATIVE_INFINITY;
      for (int o = 0; o < l; o++) {
        double sum = bias[o];
        for (int i = 0; i < width; i++) {
          sum += weight[o * width + i] * x[i];
        }
        logits[o] = sum;
        max = Math.max(max, sum);
      }
      double total = 0;
      for (int o = 0; o < l; o++) {
        logits[o] = Math.exp(logits[o] - max);
        total += logits[o];
      }
      for (int o = 0; o < l; o++) {
        scores[t * l + o] = (float) (logits[o] / total);
      }
    }
    return scores;
  }

  private double[] transform(double[] x, int width) {
    double[] y = new double[width];
    for (int o = 0; o < width; o++) {
      double sum = denseBias[o];
      for (int i = 0; i < width; i++) {
        sum += denseWeight[o * width + i] * x[i];
      }
      y[o] = form.activation().apply(sum);
    }
    return form.normed(y);
  }

  /** The label of the largest score of token t of (T, L) {@code scores} (the first of equal). */
  public String label(float[] scores, int t) {
    int l = labels.size();
    int best = 0;
    for (int o = 1; o < l; o++) {
      if (scores[t * l + o] > scores[t * l + best]) {
        best = o;
      }
    }
    return labels.get(best);
  }
}
