package io.corpus.encoder.report;

import java.util.ArrayList;
import java.util.List;

/**
 * Names for what a head does, from its mean statistics (Clark et al. 2019): broad (entropy at
 * least {@link #BROAD_FRACTION} of the uniform ln T), and previous-, next-, first-token and self
 * heads (more than half their mass there).
 */
public final class HeadLabels {
  /** Entropy, as a fraction of ln T, at or above which a head counts as broad. */
  public static final double BROAD_FRACTION = 0.9;
  /** Mean mass above which a head is labelled by where it goes. */
  public static final double MASS = 0.5;

  private HeadLabels() {}

  /** Labels of one head; {@code uniformEntropy} is ln T for the mean sequence length T. */
  public static List<String> of(double entropy, double firstToken, double self, double previous,
      double next, double uniformEntropy) {
    List<String> labels = new ArrayList<>();
    if (uniformEntropy > 0 && entropy >= BROAD_FRACTION * uniformEntropy) {
      labels.add("broad");
    }
    if (previous > MASS) {
      labels.add("previous-token");
    }
    if (next > MASS) {
      labels.add("next-token");
    }
    if (firstToken > MASS) {
      labels.add("first-token");
    }
    if (self > MASS) {
      labels.add("self");
    }
    return labels;
  }
}
