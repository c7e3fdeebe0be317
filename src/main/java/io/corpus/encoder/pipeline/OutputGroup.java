package io.corpus.encoder.pipeline;

import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.model.ClassifierHead;
import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.LexicalHead;
import io.corpus.encoder.model.MultiVectorHead;
import io.corpus.encoder.model.Quantization;
import io.corpus.encoder.model.SpladeHead;
import io.corpus.encoder.model.TokenBatch;
import io.corpus.encoder.model.TokenClassifierHead;
import io.corpus.encoder.text.Entities;
import java.io.Serializable;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The columns one output writes after a row's input, token and chunk columns, and how it fills
 * them for a sequence: the token vectors, the pooled vector, a head's outputs (sparse vector,
 * ColBERT vectors, a classifier's logits, scores and label, a token classifier's labels and
 * entities), the attention columns. {@link OutputLayout} lists the groups a job writes, in
 * column order; {@link OutputRows} fills each row by asking each group in turn. An output is
 * added as one group here and named where the layout is resolved.
 */
sealed interface OutputGroup extends Serializable permits OutputGroup.TokenVectors,
    OutputGroup.PooledVector, OutputGroup.SparseVector, OutputGroup.MultiVectors,
    OutputGroup.Attention, OutputGroup.Classes, OutputGroup.TokenLabels {

  /** The group's columns, in order; only those with a name. */
  List<StructField> fields();

  /** Fills the group's values of {@code s} into {@code values} from {@code c}; returns the next. */
  int write(Sequence s, Object[] values, int c);

  /**
   * The group's columns with a value per token, which a text's windows concatenate when they
   * become one row.
   */
  default List<String> perToken() {
    return List.of();
  }

  /**
   * Sequence b of the batch as the groups read it: {@code read} how its row was read,
   * {@code collector} the batch's attention outputs (null when none are asked for),
   * {@code model} the heads, {@code sparse} its SPLADE vector (V) when one is written,
   * {@code rows} what the job's settings and model give every row (pooling, ranges, word rules).
   */
  record Sequence(SequenceRead.Accepted read, TokenBatch batch, int b,
      AttentionCollector collector, EncoderModel model, float[] sparse, OutputRows rows) {
    int first() {
      return batch.firstRow(b);
    }

    int real() {
      return batch.length(b);
    }
  }

  /** The (T, E) token vectors, zero vectors at padding. */
  record TokenVectors(String name) implements OutputGroup {
    @Override
    public List<StructField> fields() {
      return columns(column(name, SparkArrays.floatMatrix()));
    }

    @Override
    public int write(Sequence s, Object[] values, int c) {
      values[c] = SparkArrays.tokenVectors(s.batch(), s.b(), s.read().length());
      return c + 1;
    }

    @Override
    public List<String> perToken() {
      return List.of(name);
    }
  }

  /**
   * The pooled vector, as floats (NONE), or quantized to array&lt;tinyint&gt; (int8, binary) or
   * array&lt;smallint&gt; (uint8, ubinary: 0..255).
   */
  record PooledVector(String name, Quantization quantization) implements OutputGroup {
    @Override
    public List<StructField> fields() {
      return columns(column(name, DataTypes.createArrayType(quantization == Quantization.NONE
          ? DataTypes.FloatType : quantization.unsigned() ? DataTypes.ShortType
          : DataTypes.ByteType, false)));
    }

    @Override
    public int write(Sequence s, Object[] values, int c) {
      TokenBatch batch = s.batch();
      values[c] = value(s.rows(), s.rows().pooled(batch.tokens(), s.first(), s.real(),
          batch.width(), s.read(), s.model()));
      return c + 1;
    }

    /** The column's value of a pooled vector. */
    UnsafeArrayData value(OutputRows rows, float[] pooled) {
      return quantization == Quantization.NONE ? UnsafeArrayData.fromPrimitiveArray(pooled)
          : rows.quantized(pooled, quantization);
    }
  }

  /**
   * A sparse vector, its indices then its values: SPLADE's or bge-m3's lexical weights.
   *
   * @param topK keep the k largest values (0: all)
   */
  record SparseVector(String indices, String values, int topK) implements OutputGroup {
    @Override
    public List<StructField> fields() {
      return columns(column(indices, DataTypes.createArrayType(DataTypes.IntegerType, false)),
          column(values, DataTypes.createArrayType(DataTypes.FloatType, false)));
    }

    @Override
    public int write(Sequence s, Object[] out, int c) {
      SpladeHead.Sparse entries = s.sparse() != null ? SpladeHead.sparse(s.sparse(), topK)
          : s.model().head(LexicalHead.class).orElseThrow().weights(s.batch().tokens(),
              s.first(), s.real(), rowIds(s)).largest(topK);
      out[c] = UnsafeArrayData.fromPrimitiveArray(entries.indices());
      out[c + 1] = UnsafeArrayData.fromPrimitiveArray(entries.values());
      return c + 2;
    }

    /** The token id of each of the sequence's rows in the batch (its real tokens, in order). */
    private static int[] rowIds(Sequence s) {
      int[] out = new int[s.real()];
      for (int r = 0; r < out.length; r++) {
        out[r] = s.read().ids()[s.batch().position(s.first() + r)];
      }
      return out;
    }
  }

  /** ColBERT's vectors, one per token the folder keeps. */
  record MultiVectors(String name) implements OutputGroup {
    @Override
    public List<StructField> fields() {
      return columns(column(name, SparkArrays.floatMatrix()));
    }

    @Override
    public int write(Sequence s, Object[] values, int c) {
      int[] rows = s.rows().multiVectorRows(s.read().ids(), s.first(), s.real());
      MultiVectorHead colbert = s.model().head(MultiVectorHead.class).orElseThrow();
      values[c] = SparkArrays.rows(colbert.vectors(s.batch().tokens(), rows), rows.length,
          colbert.width());
      return c + 1;
    }
  }

  /**
   * The attention columns the job asks for ({@code outputs}): maps, statistics sums, rollout,
   * head importances, each when named ({@link AttentionColumns}).
   */
  record Attention(AttentionOutputs outputs, String maps, String stats, String rollout,
      String importance) implements OutputGroup {
    @Override
    public List<StructField> fields() {
      return columns(column(maps, DataTypes.createArrayType(AttentionColumns.mapStruct(
              outputs.format() == AttentionOutputs.MapFormat.TOP_K), false)),
          column(stats, AttentionColumns.statsType()),
          nullable(rollout, SparkArrays.floatMatrix()),
          nullable(importance, DataTypes.createArrayType(DataTypes.DoubleType, false)));
    }

    @Override
    public int write(Sequence s, Object[] values, int c) {
      AttentionCollector collector = s.collector();
      int length = s.read().length();
      if (!maps.isEmpty()) {
        values[c++] = outputs.format() == AttentionOutputs.MapFormat.TOP_K
            ? AttentionColumns.topKMaps(s.batch(), s.b(), length, collector.maps(s.b()),
                outputs.topK())
            : AttentionColumns.maps(s.batch(), s.b(), length, collector.maps(s.b()));
      }
      if (!stats.isEmpty()) {
        values[c++] = AttentionColumns.statsValue(collector.statSums(s.b()), s.rows().heads(),
            s.real());
      }
      if (!rollout.isEmpty()) {
        float[] weights = collector.rollout(s.b());
        values[c++] = weights == null ? null : AttentionColumns.rollout(weights, s.batch(), s.b(),
            length);
      }
      if (!importance.isEmpty()) {
        double[] heads = collector.importance(s.b());
        values[c++] = heads == null ? null : UnsafeArrayData.fromPrimitiveArray(heads);
      }
      return c;
    }
  }

  /**
   * A sequence classifier's (or reranker's) logits, scores and the label of its largest logit,
   * each when named; the head reads the sequence's final states: the first ([CLS]), their mean,
   * or a decoder's last that is not the pad token.
   */
  record Classes(String logits, String scores, String label) implements OutputGroup {
    @Override
    public List<StructField> fields() {
      return columns(column(logits, DataTypes.createArrayType(DataTypes.FloatType, false)),
          column(scores, DataTypes.createArrayType(DataTypes.FloatType, false)),
          column(label, DataTypes.StringType));
    }

    @Override
    public int write(Sequence s, Object[] values, int c) {
      ClassifierHead head = s.model().head(ClassifierHead.class).orElseThrow();
      int from = head.readFrom(s.read().ids(), s.real());
      TokenBatch batch = s.batch();
      float[] out = head.logits(batch.tokens(), (s.first() + from) * batch.width(),
          s.real() - from);
      if (!logits.isEmpty()) {
        values[c++] = UnsafeArrayData.fromPrimitiveArray(out);
      }
      if (!scores.isEmpty()) {
        values[c++] = UnsafeArrayData.fromPrimitiveArray(head.scores(out));
      }
      if (!label.isEmpty()) {
        values[c++] = UTF8String.fromString(head.label(out));
      }
      return c;
    }
  }

  /**
   * A token classifier's label of every token and its entities, each when named (the entities
   * are a row's last column).
   *
   * @param aggregation how entities are grouped (null when none are written)
   */
  record TokenLabels(String labels, String entities, Entities.Aggregation aggregation)
      implements OutputGroup {
    @Override
    public List<StructField> fields() {
      return columns(column(labels, EntityColumns.labelsType()),
          column(entities, EntityColumns.entitiesType()));
    }

    @Override
    public int write(Sequence s, Object[] values, int c) {
      TokenClassifierHead head = s.model().head(TokenClassifierHead.class).orElseThrow();
      TokenBatch batch = s.batch();
      float[] scores = head.scores(batch.tokens(), s.first(), s.real(), batch.width());
      if (!labels.isEmpty()) {
        String[] each = new String[s.read().length()];
        for (int r = 0; r < s.real(); r++) {
          each[batch.position(s.first() + r)] = head.label(scores, r);
        }
        values[c++] = EntityColumns.labels(each);
      }
      if (!entities.isEmpty()) {
        SequenceRead.Accepted read = s.read();
        values[c++] = EntityColumns.entities(Entities.of(read.text().codePoints(), read.ids(),
            read.tokens(), read.text().spans(), scores, head.labels(), s.rows().wordRules(),
            aggregation));
      }
      return c;
    }

    @Override
    public List<String> perToken() {
      return labels.isEmpty() ? List.of() : List.of(labels);
    }
  }

  /** A non-nullable column; none for a name of "". */
  private static Optional<StructField> column(String name, DataType type) {
    return Optional.of(name).filter(n -> !n.isEmpty())
        .map(n -> DataTypes.createStructField(n, type, false));
  }

  /** A nullable column; none for a name of "". */
  private static Optional<StructField> nullable(String name, DataType type) {
    return Optional.of(name).filter(n -> !n.isEmpty())
        .map(n -> DataTypes.createStructField(n, type, true));
  }

  @SafeVarargs
  private static List<StructField> columns(Optional<StructField>... named) {
    return Stream.of(named).flatMap(Optional::stream).toList();
  }
}
