package io.corpus.encoder.pipeline;

import io.corpus.encoder.config.InputKind;
import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.PoolingSteps;
import io.corpus.encoder.model.Quantization;
import io.corpus.encoder.model.SpladeHead;
import io.corpus.encoder.model.TokenBatch;
import io.corpus.encoder.text.Entities;
import io.corpus.encoder.weights.LateInteraction;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Builds output rows as Spark internal rows, of exactly their {@link OutputLayout}: the input's
 * kept columns, then, with text input, {@code input_ids} and {@code tokens}; a chunk's columns;
 * then each {@link OutputGroup}'s values, from primitive arrays without boxing. Holds what every
 * row's outputs read beyond the layout: how the pooled vector is made, the quantization ranges,
 * the tokenizer's word rules, how a PyLate folder reads its texts.
 */
final class OutputRows implements Serializable {
  private final OutputLayout layout;
  private final PoolingSteps pooling;
  private final int heads;
  private final Entities.WordRules wordRules;
  private final Quantization.Ranges ranges;         // int8 and uint8's; null otherwise
  private final LateInteraction.Input late;         // a PyLate folder's reading; null otherwise

  /**
   * @param pooling how the pooled vector is made (when the layout has one)
   * @param heads H, for the statistics sums
   * @param wordRules the tokenizer's unknown token and sub-word marking, for entities
   * @param ranges the per-dimension ranges of an int8 or uint8 pooled vector; else null
   * @param late how a PyLate folder reads the texts, whose tokens get ColBERT vectors; null:
   *     bge-m3's, every token after the first
   */
  OutputRows(OutputLayout layout, PoolingSteps pooling, int heads, Entities.WordRules wordRules,
      Quantization.Ranges ranges, LateInteraction.Input late) {
    this.layout = layout;
    this.pooling = pooling;
    this.heads = heads;
    this.wordRules = wordRules;
    this.ranges = ranges;
    this.late = late;
  }

  /**
   * The output row of sequence b of the batch, read from {@code input} as {@code read};
   * {@code collector} holds the batch's attention outputs (null when none are asked for);
   * {@code model} gives the heads the layout writes and the Dense modules that follow pooling;
   * {@code sparse} is the sequence's SPLADE vector (V), when written.
   */
  InternalRow build(InternalRow input, SequenceRead.Accepted read, TokenBatch batch, int b,
      AttentionCollector collector, EncoderModel model, float[] sparse) {
    Object[] values = new Object[layout.width()];
    int c = keptAndTokens(input, read.ids(), read.tokens(), values);
    if (layout.withTypeIds()) {
      values[c++] = UnsafeArrayData.fromPrimitiveArray(read.typeIds());
    }
    if (layout.withChunks()) {
      values[c++] = read.chunk().index();
      values[c++] = read.chunk().start();
      values[c++] = read.chunk().end();
    } else if (layout.chunkDocuments()) {
      values[c++] = 1;   // one window so far: mergeWindows counts them
    }
    OutputGroup.Sequence sequence = new OutputGroup.Sequence(read, batch, b, collector, model,
        sparse, this);
    for (OutputGroup group : layout.groups()) {
      c = group.write(sequence, values, c);
    }
    return new GenericInternalRow(values);
  }

  /**
   * The row of one late chunk ({@link LateDocument}): the input's columns, the span's ids and
   * tokens, which chunk it is and where its text is, the span's token vectors when written and
   * its pooled vector, from the {@code length} states at row {@code first} of {@code states}
   * (the whole text's, width E). Late chunking writes no other group.
   */
  InternalRow lateChunk(InternalRow input, int[] ids, String[] tokens, SequenceRead.Chunk chunk,
      float[] states, int first, int length, int width, EncoderModel model) {
    Object[] values = new Object[layout.width()];
    int c = keptAndTokens(input, ids, tokens, values);
    values[c++] = chunk.index();
    values[c++] = chunk.start();
    values[c++] = chunk.end();
    if (layout.has(OutputGroup.TokenVectors.class)) {
      Object[] vectors = new Object[length];
      for (int t = 0; t < length; t++) {
        vectors[t] = SparkArrays.floats(states, (first + t) * width, width);
      }
      values[c++] = new GenericArrayData(vectors);
    }
    Optional<OutputGroup.PooledVector> pooled = layout.group(OutputGroup.PooledVector.class);
    if (pooled.isPresent()) {
      values[c] = pooled.get().value(this, pooled(states, first, length, width,
          SequenceRead.Accepted.of(length), model));
    }
    return new GenericInternalRow(values);
  }

  /**
   * The input's kept columns into {@code values}, then, with text input, the ids and the tokens'
   * strings; returns the next column's index.
   */
  private int keptAndTokens(InternalRow input, int[] ids, String[] tokens, Object[] values) {
    int c = 0;
    int[] kept = layout.keptOrdinals();
    for (int i = 0; i < kept.length; i++) {
      values[c++] = input.get(kept[i], layout.keptTypes()[i]);
    }
    if (layout.withTokens()) {
      values[c++] = UnsafeArrayData.fromPrimitiveArray(ids);
      Object[] strings = new Object[tokens.length];
      for (int t = 0; t < strings.length; t++) {
        strings[t] = UTF8String.fromString(tokens[t]);
      }
      values[c++] = new GenericArrayData(strings);
    }
    return c;
  }

  /**
   * The pooled vector, as written before any quantization, of the {@code length} final states
   * from row {@code first} of {@code tokens} (width E) of a sequence read as {@code read}: its
   * pooling over the tokens after its prompt's, the Dense modules, the Matryoshka cut, the norm.
   */
  float[] pooled(float[] tokens, int first, int length, int width, SequenceRead.Accepted read,
      EncoderModel model) {
    return pooling.of(model, tokens, first, length, width, read.prompt().unpooled());
  }

  /** A pooled vector as {@code quantization} writes it: bytes, or 0..255 as shorts. */
  UnsafeArrayData quantized(float[] pooled, Quantization quantization) {
    Object values = quantization.written(pooled, ranges);
    return values instanceof short[] shorts ? UnsafeArrayData.fromPrimitiveArray(shorts)
        : UnsafeArrayData.fromPrimitiveArray((byte[]) values);
  }

  /**
   * The rows of a sequence of {@code length} tokens from row {@code first} that get ColBERT
   * vectors: PyLate's choice for its folders, else FlagEmbedding's, every token after the first
   * ({@code <s>}).
   */
  int[] multiVectorRows(int[] ids, int first, int length) {
    int[] rows = new int[length];
    int count = 0;
    for (int t = late == null ? 1 : 0; t < length; t++) {
      if (late == null || late.keeps(ids[t])) {
        rows[count++] = first + t;
      }
    }
    return Arrays.copyOf(rows, count);
  }

  /** H, for the statistics sums. */
  int heads() {
    return heads;
  }

  /** The tokenizer's unknown token and sub-word marking, for entities. */
  Entities.WordRules wordRules() {
    return wordRules;
  }

  /**
   * SPLADE's vector of every sequence of the batch (its real tokens' states, no padding), or
   * null when none is written.
   */
  float[][] sparseVectors(TokenBatch batch, EncoderModel model) {
    return !layout.has(OutputGroup.SparseVector.class) ? null
        : model.head(SpladeHead.class).map(splade -> splade.pool(batch)).orElse(null);
  }

  /** Whether a text's windows become one row ({@link #mergeWindows}). */
  boolean documentRows() {
    return layout.chunkDocuments();
  }

  /**
   * One row of a text's window rows (built by {@link #build}, in order): the per-token columns
   * concatenated, {@code chunks} their count, the entities of all windows merged as the
   * pipeline merges a strided text's ({@link Entities#merge}).
   */
  InternalRow mergeWindows(List<InternalRow> windows) {
    if (windows.size() == 1) {
      return windows.get(0);
    }
    Object[] values = new Object[layout.width()];
    InternalRow first = windows.get(0);
    for (int i = 0; i < values.length; i++) {
      values[i] = first.get(i, layout.schema().fields()[i].dataType());
    }
    for (int ordinal : layout.tokenOrdinals()) {
      List<Object> all = new ArrayList<>();
      DataType element = ((ArrayType) layout.schema().fields()[ordinal].dataType())
          .elementType();
      for (InternalRow window : windows) {
        ArrayData part = window.getArray(ordinal);
        for (int t = 0; t < part.numElements(); t++) {
          all.add(part.isNullAt(t) ? null : part.get(t, element));
        }
      }
      values[ordinal] = new GenericArrayData(all.toArray());
    }
    values[layout.schema().fieldIndex(InputKind.CHUNKS_COLUMN)] = windows.size();
    if (layout.withEntities()) {
      int ordinal = values.length - 1;
      List<Entities.Entity> all = new ArrayList<>();
      for (InternalRow window : windows) {
        all.addAll(EntityColumns.read(window.getArray(ordinal)));
      }
      values[ordinal] = EntityColumns.entities(Entities.merge(all));
    }
    return new GenericInternalRow(values);
  }
}
