package io.corpus.encoder.model;

import java.io.Serializable;
import java.util.List;

/**
 * A sequence-classification head, as Hugging Face's {@code BertForSequenceClassification} and
 * {@code XLMRobertaForSequenceClassification} put it on the encoder: the first token's final
 * state through a dense layer and tanh (BERT's pooler, XLM-R's {@code classifier.dense}), then a
 * linear layer to one logit per label ({@code classifier}, {@code classifier.out_proj}), and the
 * scores a text-classification pipeline reports.
 *
 * <pre>
 *   pooled = tanh(W_p · h_0 + b_p)        W_p (E, E), h_0 the first token's state (E)
 *   logits = W_c · pooled + b_c           W_c (L, E): L labels
 *   scores = sigmoid(logits) | softmax(logits) | logits
 * </pre>
 *
 * Computed in double precision, per sequence: L·E + E² multiply-adds, nothing beside a layer.
 *
 * @param poolerWeight W_p, (E, E) row-major, as PyTorch stores Linear weights (out, in)
 * @param poolerBias b_p, (E)
 * @param weight W_c, (L, E)
 * @param bias b_c, (L)
 * @param labels the label of each logit, in order (L)
 * @param scoring how scores come from logits
 */
public record ClassifierHead(float[] poolerWeight, float[] poolerBias, float[] weight,
    float[] bias, List<String> labels, Scoring scoring) implements Serializable {

  /** How the scores come from the logits. */
  public enum Scoring {
    /** Each logit on its own: one label, or several that may all hold. */
    SIGMOID,
    /** Over the logits: exactly one label holds. */
    SOFTMAX,
    /** The logits themselves (a cross-encoder configured with an identity activation). */
    NONE
  }

  public ClassifierHead {
    int width = poolerBias.length;
    if (poolerWeight.length != width * width || weight.length != labels.size() * width
        || bias.length != labels.size()) {
      throw new IllegalArgumentException("Classifier head shapes disagree: pooler "
          + poolerWeight.length + " for E = " + width + ", classifier " + weight.length + " and "
          + bias.length + " for " + labels.size() + " labels");
    }
    labels = List.copyOf(labels);
  }

  public int labelCount() {
    return labels.size();
  }

  /** The logits (L) of the sequence whose first token's state starts at {@code offset}. */
  public float[] logits(float[] states, int offset) {
    int e = poolerBias.length;
    double[] pooled = new double[e];
    for (int o = 0; o < e; o++) {
      double sum = poolerBias[o];
      for (int i = 0; i < e; i++) {
        sum += (double) poolerWeight[o * e + i] * states[offset + i];
      }
      pooled[o] = Math.tanh(sum);
    }
    float[] logits = new float[labels.size()];
    for (int l = 0; l < logits.length; l++) {
      double sum = bias[l];
      for (int i = 0; i < e; i++) {
        sum += weight[l * e + i] * pooled[i];
      }
      logits[l] = (float) sum;
    }
    return logits;
  }

  /** The scores of {@code logits}, as {@link #scoring} says. */
  public float[] scores(float[] logits) {
    float[] scores = new float[logits.length];
    switch (scoring) {
      case SIGMOID -> {
        for (int l = 0; l < logits.length; l++) {
          scores[l] = (float) (1 / (1 + Math.exp(-logits[l])));
        }
      }
      case SOFTMAX -> {
        double max = Double.NEGATIVE_INFINITY;
        for (float v : logits) {
          max = Math.max(max, v);
        }
        double sum = 0;
        for (float v : logits) {
          sum += Math.exp(v - max);
        }
        for (int l = 0; l < logits.length; l++) {
          scores[l] = (float) (Math.exp(logits[l] - max) / sum);
        }
      }
      case NONE -> System.arraycopy(logits, 0, scores, 0, logits.length);
      default -> throw new AssertionError(scoring);
    }
    return scores;
  }

  /** The label of the largest logit (the first of equal ones). */
  public String label(float[] logits) {
    int best = 0;
    for (int l = 1; l < logits.length; l++) {
      if (logits[l] > logits[best]) {
        best = l;
      }
    }
    return labels.get(best);
  }

  /** Number of float parameters. */
  public long parameterCount() {
    return (long) poolerWeight.length + poolerBias.length + weight.length + bias.length;
  }
}
