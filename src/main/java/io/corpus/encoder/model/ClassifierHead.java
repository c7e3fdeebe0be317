package io.corpus.encoder.model;

import java.io.Serializable;
import java.util.List;
import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.kernel.LayerNorm;

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
 * {@code ModernBertForSequenceClassification}'s head differs in its {@link Form}: h is the first
 * token's state or the mean of all, the dense layer is followed by GELU and a layer norm;
 * {@code DistilBertForSequenceClassification}'s follows it by ReLU.
 *
 * Computed in double precision, per sequence: L·E + E² multiply-adds, nothing beside a layer.
 *
 * @param poolerWeight W_p, (E, E) row-major, as PyTorch stores Linear weights (out, in)
 * @param poolerBias b_p, (E) (zeros when the head has none)
 * @param weight W_c, (L, E)
 * @param bias b_c, (L)
 * @param labels the label of each logit, in order (L)
 * @param scoring how scores come from logits
 * @param form what the dense layer reads and what follows it
 */
public record ClassifierHead(float[] poolerWeight, float[] poolerBias, float[] weight,
    float[] bias, List<String> labels, Scoring scoring, Form form) implements Head {

  /**
   * What the dense layer reads and what follows it.
   *
   * @param read which of the sequence's final states the head reads
   * @param activation what follows the dense layer, or NONE when there is no dense layer
   * @param norm (E) a layer norm after the activation, or none
   * @param normEps its eps
   * @param padId the pad token's id, which {@link Read#LAST_NOT_PAD} passes over; -1 for none
   */
  public record Form(Read read, DenseActivation activation, Norm norm, double normEps,
      int padId) implements Serializable {
    /** BERT's and XLM-R's: the first token, tanh, no norm. */
    public static final Form FIRST_TANH =
        new Form(Read.FIRST, DenseActivation.TANH, Norm.none(), 0, -1);

    /** No dense layer: the state goes to the output layer as it is. */
    public static final Form LINEAR = new Form(Read.FIRST, DenseActivation.NONE, Norm.none(), 0,
        -1);

    /** A decoder's score layer: no dense layer, the last token that is not {@code padId}. */
    public static Form lastNotPad(int padId) {
      return new Form(Read.LAST_NOT_PAD, DenseActivation.NONE, Norm.none(), 0, padId);
    }

    /** After the dense layer and its activation: x through the norm, if there is one. */
    double[] normed(double[] x) {
      return norm instanceof Norm.Affine a ? LayerNorm.exact(x, a.scale(), a.shift(), normEps)
          : x;
    }
  }

  /** Which of a sequence's final states a head reads. */
  public enum Read {
    /** The first token's ([CLS], {@code <s>}). */
    FIRST,
    /** The mean of every token's. */
    MEAN,
    /**
     * The rightmost token's whose id is not the pad token's, as transformers' decoder
     * sequence classifiers read it (the last token's when no pad token is set; the first's when
     * every token is one).
     */
    LAST_NOT_PAD
  }

  /** What follows the head's dense layer. */
  public enum DenseActivation {
    TANH, GELU, RELU,
    /** No dense layer: the state read goes to the output layer as it is. */
    NONE;

    double apply(double v) {
      return switch (this) {
        case TANH -> Math.tanh(v);
        case GELU -> Activation.GELU.exact(v);
        case RELU -> Math.max(0, v);
        case NONE -> v;
      };
    }
  }

  /** BERT's and XLM-R's head ({@link Form#FIRST_TANH}). */
  public ClassifierHead(float[] poolerWeight, float[] poolerBias, float[] weight, float[] bias,
      List<String> labels, Scoring scoring) {
    this(poolerWeight, poolerBias, weight, bias, labels, scoring, Form.FIRST_TANH);
  }

  /** How the scores come from the logits. */
  public enum Scoring {
    /** Each logit on its own: one label, or several that may all hold. */
    SIGMOID,
    /** Over the logits: exactly one label holds. */
    SOFTMAX,
    /** The logits themselves (a cross-encoder configured with an identity activation). */
    NONE
  }

  /**
   * A decoder's sequence classifier: {@code score} (L, E), without a bias, on the rightmost token
   * that is not {@code padId} (-1: the last token).
   */
  public static ClassifierHead score(float[] weight, List<String> labels, Scoring scoring,
      int padId) {
    return new ClassifierHead(new float[0], new float[0], weight, new float[labels.size()],
        labels, scoring, Form.lastNotPad(padId));
  }

  public ClassifierHead {
    boolean dense = form.activation() != DenseActivation.NONE;
    int width = dense ? poolerBias.length : weight.length / Math.max(1, labels.size());
    if (!dense && (poolerWeight.length > 0 || poolerBias.length > 0)) {
      throw new IllegalArgumentException("A head without a dense layer has no pooler weights");
    }
    if (dense && poolerWeight.length != width * width
        || weight.length != labels.size() * width
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

  /**
   * Where in a sequence of {@code length} tokens the head reads: 0 for the first token (and
   * the mean, which reads from there), else the rightmost token whose id in {@code ids} (the
   * sequence's, or null when they are not known: the last token) is not the pad token's.
   */
  public int readFrom(int[] ids, int length) {
    if (form.read() != Read.LAST_NOT_PAD) {
      return 0;
    }
    if (ids == null || form.padId() < 0) {
      return length - 1;
    }
    for (int t = length - 1; t >= 0; t--) {
      if (ids[t] != form.padId()) {
        return t;
      }
    }
    return 0;
  }

  /**
   * The logits (L) of the sequence whose T = {@code length} states (T, E) start at
   * {@code offset}: the first of them, or their mean, as the head reads.
   */
  public float[] logits(float[] states, int offset, int length) {
    int e = weight.length / labels.size();
    double[] h = new double[e];
    int rows = form.read() == Read.MEAN ? length : 1;
    for (int t = 0; t < rows; t++) {
      for (int i = 0; i < e; i++) {
        h[i] += states[offset + t * e + i] / (double) rows;
      }
    }
    double[] pooled = h;
    if (form.activation() != DenseActivation.NONE) {
      pooled = new double[e];
      for (int o = 0; o < e; o++) {
        double sum = poolerBias[o];
        for (int i = 0; i < e; i++) {
          sum += (double) poolerWeight[o * e + i] * h[i];
        }
        pooled[o] = form.activation().apply(sum);
      }
    }
    pooled = form.normed(pooled);
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
}
