package io.corpus.encoder.pipeline;

import io.corpus.encoder.common.ConfigName;
import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.config.InputKind;
import io.corpus.encoder.config.OutputChoices;
import io.corpus.encoder.config.SettingRules;
import io.corpus.encoder.config.Settings;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.text.Entities;
import io.corpus.encoder.text.LateChunking;
import io.corpus.encoder.weights.ModelFolder;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.types.StructType;

/**
 * What an {@link EncoderTransformer}'s output params ask for, checked: the columns an input of a
 * schema gives ({@link OutputLayout}), how entities are grouped, and what late chunking and a
 * chunked text's single row cannot write.
 */
final class OutputParams {
  private final EncoderTransformer t;
  private final InputParams input;

  OutputParams(EncoderTransformer t) {
    this.t = t;
    this.input = new InputParams(t);
  }

  /** The output columns these params give for an input of {@code schema}, checked. */
  OutputLayout layout(StructType schema, InputColumns columns) {
    Optional<ModelFolder.Classifier> classifier = t.fromFolder() ? t.folder().classifier()
        : Optional.empty();
    Optional<ModelFolder.Classifier> head = classifier.filter(c -> !c.perToken());
    boolean perToken = classifier.filter(ModelFolder.Classifier::perToken).isPresent();
    Entities.Aggregation aggregation = entityAggregation(columns.kind(), perToken);
    OutputChoices choices = t.outputChoices();
    Pooling pooling = choices.pooling();
    boolean splade = pooling == Pooling.SPLADE;
    t.checkMatryoshkaCut(pooling);
    SettingRules.pooledVector(pooling, choices.normalize(),
        !t.column(t.importanceCol).isEmpty(), SettingRules.Naming.PARAMS);
    boolean sparse = splade || choices.lexical();
    AttentionOutputs attention = t.attentionOutputs();
    OutputLayout layout = OutputLayout.of(schema, columns, input.chunkRows(), List.of(
        new OutputGroup.TokenVectors(t.column(t.outputCol)),
        new OutputGroup.PooledVector(pooling.dense() ? t.column(t.pooledCol) : "",
            choices.quantization()),
        new OutputGroup.SparseVector(sparse ? t.column(t.sparseIndicesCol) : "",
            sparse ? t.column(t.sparseValuesCol) : "", t.intValue(Settings.SPARSE_TOP_K)),
        new OutputGroup.MultiVectors(choices.multiVector() ? t.column(t.multiVectorsCol) : ""),
        new OutputGroup.Attention(attention, t.column(t.attentionCol), t.column(t.statsCol),
            t.column(t.rolloutCol), t.column(t.importanceCol)),
        new OutputGroup.Classes(head.isPresent() ? t.column(t.logitsCol) : "",
            head.isPresent() ? t.column(t.scoresCol) : "",
            head.isPresent() && head.get().labels().size() > 1 ? t.column(t.labelCol) : ""),
        new OutputGroup.TokenLabels(perToken ? t.column(t.tokenLabelsCol) : "",
            aggregation != null ? t.column(t.entitiesCol) : "", aggregation)), attention);
    if (input.lateChunking() != LateChunking.SpanRule.NONE) {
      checkLateChunking(layout, pooling);
    }
    if (layout.chunkDocuments() && layout.has(OutputGroup.TokenVectors.class)) {
      throw new IllegalArgumentException("With entities and onTooLong = chunk a text's windows "
          + "become one row, whose token vectors would be the whole document's (T x E floats "
          + "held for one row, however long the text): set output.token-embeddings = false "
          + "(outputCol = \"\")");
    }
    if (layout.chunkDocuments() && (layout.has(OutputGroup.PooledVector.class)
        || layout.has(OutputGroup.SparseVector.class)
        || layout.has(OutputGroup.MultiVectors.class) || attention.any())) {
      throw new IllegalArgumentException("With entities and onTooLong = chunk a text's windows "
          + "become one row, so a vector or map per window has no row: set pooling = none"
          + (attention.any() ? " and no attention outputs" : "")
          + ", or entities = none for a row per window");
    }
    return layout;
  }

  /**
   * Refuses what late chunking cannot write: a chunk's row holds its span's token vectors and
   * its mean, and nothing read from the whole text at once.
   */
  private void checkLateChunking(OutputLayout layout, Pooling pooling) {
    if (layout.has(OutputGroup.PooledVector.class) && pooling != Pooling.MEAN) {
      throw new IllegalArgumentException("lateChunking gives each chunk the mean of its span's "
          + "token states; pooling = " + pooling.configName() + (t.fromFolder()
              ? " (" + t.folder().folder() + "'s pooling)" : "") + " reads the text whole, not "
          + "a span: late chunking needs a mean-pooling folder, or pooling = mean");
    }
    if (layout.groups().stream().anyMatch(group -> !(group instanceof OutputGroup.TokenVectors
        || group instanceof OutputGroup.PooledVector))) {
      throw new IllegalArgumentException("lateChunking writes each chunk's pooled vector (and "
          + "its token vectors, when asked); sparse vectors, ColBERT vectors, a classifier's "
          + "outputs, entities and attention outputs are not written per chunk: leave them "
          + "out");
    }
  }

  /**
   * How entities are grouped: the entities param, auto being simple for a token classifier's
   * text; null when none are written. Entities need a token classifier and text, whose offsets
   * they give.
   */
  Entities.Aggregation entityAggregation(InputKind kind, boolean tokenClassifier) {
    String value = t.string(Settings.ENTITIES);
    boolean asked = !value.equals("auto") && !value.equals("none");
    if (asked && !tokenClassifier) {
      throw new IllegalArgumentException("entities = " + value + " needs a token classifier "
          + "(a model folder whose config.json names …ForTokenClassification)"
          + (t.fromFolder() ? "; " + t.folder().folder() + " has none" : ""));
    }
    if (asked && kind != InputKind.TEXT) {
      throw new IllegalArgumentException("entities = " + value + " needs text input "
          + "(textCol): entities are spans of the text");
    }
    if (!tokenClassifier || kind != InputKind.TEXT || value.equals("none")
        || t.strings(Settings.TEXT_PAIR_COLUMNS).length > 0
        || t.column(t.entitiesCol).isEmpty()) {
      return null;
    }
    return value.equals("auto") ? Entities.Aggregation.SIMPLE
        : ConfigName.parse(Entities.Aggregation.values(), value, "entities");
  }
}
