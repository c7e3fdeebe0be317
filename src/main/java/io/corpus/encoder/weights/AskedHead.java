package io.corpus.encoder.weights;

import io.corpus.encoder.model.Pooling;
import java.util.EnumSet;
import java.util.Set;

/**
 * A head a job reads beyond the folder's own when its outputs ask for it; the folder's own heads
 * (a classifier, a token classifier) it always reads.
 */
public enum AskedHead {
  /** SPLADE's masked-LM head, from the checkpoint ({@code output.pooling = splade}). */
  SPLADE,
  /** bge-m3's lexical weights, beside the checkpoint ({@code output.sparse = lexical}). */
  LEXICAL,
  /**
   * ColBERT's vectors: a PyLate folder's projections, or bge-m3's {@code colbert_linear}
   * ({@code output.multi-vector = colbert}).
   */
  COLBERT;

  /** None: the folder's own heads only. */
  public static final Set<AskedHead> NONE = Set.of();

  /** The heads these outputs read: a pooling, lexical sparse vectors, ColBERT's vectors. */
  public static Set<AskedHead> of(Pooling pooling, boolean lexical, boolean multiVector) {
    Set<AskedHead> heads = EnumSet.noneOf(AskedHead.class);
    if (pooling == Pooling.SPLADE) {
      heads.add(SPLADE);
    }
    if (lexical) {
      heads.add(LEXICAL);
    }
    if (multiVector) {
      heads.add(COLBERT);
    }
    return Set.copyOf(heads);
  }
}
