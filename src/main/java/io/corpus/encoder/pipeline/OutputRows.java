package io.corpus.encoder.pipeline;

import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.config.InputKind;
import io.corpus.encoder.model.ClassifierHead;
import io.corpus.encoder.model.DenseLayer;
import io.corpus.encoder.model.EncoderModel;
import io.corpus.encoder.model.LexicalHead;
import io.corpus.encoder.model.MultiVectorHead;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.Quantization;
import io.corpus.encoder.model.SpladeHead;
import io.corpus.encoder.model.TokenBatch;
import io.corpus.encoder.model.TokenClassifierHead;
import io.corpus.encoder.model.TopK;
import io.corpus.encoder.text.Entities;
import io.corpus.encoder.weights.LateInteraction;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Builds output rows as Spark internal rows: the input's kept columns, then, with text input,
 * {@code input_ids} and {@code tokens}; the embeddings (T, E) unless left out; the pooled vector
 * (E, L2-normalized when asked); and, when asked for, the attention maps, the statistics sums and
 * the rollout, from primitive arrays without boxing. Padding positions come back as zero vectors
 * and zero rows and columns of the maps.
 */
final class OutputRows implements Serializable {
  private final OutputLayout layout;
  private final Pooling pooling;
  private final boolean normalize;
  private final int dimensions;   // 0: the whole pooled vector
  private final int heads;
  private final int sparseTopK;                     // 0: every non-zero value
  private final Entities.Aggregation aggregation;   // null: no entities
  private final Entities.WordRules wordRules;
  private final Quantization.Ranges ranges;         // int8 and uint8's; null otherwise
  private final LateInteraction.Input late;         // a PyLate folder's reading; null otherwise

  /**
   * @param pooling the pooled vector's pooling (when the layout has one)
   * @param normalize scale the pooled vector to unit L2 norm
   * @param dimensions keep the pooled vector's first values only, before it is normalized (0 =
   *     all)
   * @param heads H, for the statistics sums
   * @param sparseTopK SPLADE: keep the k largest values (0: all)
   * @param aggregation how a token classifier's entities are grouped (null: none written)
   * @param wordRules the tokenizer's unknown token and sub-word marking, for entities
   * @param ranges the per-dimension ranges of an int8 or uint8 pooled vector; else null
   * @param late how a PyLate folder reads the texts, whose tokens get ColBERT vectors; null:
   *     bge-m3's, every token after the first
   */
  OutputRows(OutputLayout layout, Pooling pooling, boolean normalize, int dimensions,
      int heads, int sparseTopK, Entities.Aggregation aggregation,
      Entities.WordRules wordRules, Quantization.Ranges ranges, LateInteraction.Input late) {
    this.layout = layout;
    this.pooling = pooling;
    this.normalize = normalize;
    this.dimensions = dimensions;
    this.heads = heads;
    this.sparseTopK = sparseTopK;
    this.aggregation = aggregation;
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
    int length = read.length();
    AttentionOutputs attention = layout.attention();
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
    if (layout.withEmbeddings()) {
      values[c++] = embeddings(batch, b, length);
    }
    if (layout.withPooled()) {
      float[] pooled = pooled(batch.tokens(), batch.firstRow(b), batch.length(b), batch.width(),
          read, model);
      values[c++] = layout.quantization() == Quantization.NONE
          ? UnsafeArrayData.fromPrimitiveArray(pooled) : quantized(pooled);
    }
    if (layout.withSparse()) {
      SpladeHead.Sparse entries = sparse != null ? SpladeHead.sparse(sparse, sparseTopK)
          : model.head(LexicalHead.class).orElseThrow().weights(batch.tokens(),
              batch.firstRow(b), batch.length(b), rowIds(read.ids(), batch, b))
              .largest(sparseTopK);
      values[c++] = UnsafeArrayData.fromPrimitiveArray(entries.indices());
      values[c++] = UnsafeArrayData.fromPrimitiveArray(entries.values());
    }
    if (layout.withMultiVectors()) {
      int[] rows = multiVectorRows(read.ids(), batch.firstRow(b), batch.length(b));
      MultiVectorHead colbert = model.head(MultiVectorHead.class).orElseThrow();
      values[c++] = rows(colbert.vectors(batch.tokens(), rows), rows.length, colbert.width());
    }
    if (attention.enabled()) {
      values[c++] = attention.format() == AttentionOutputs.MapFormat.TOP_K
          ? topKMaps(batch, b, length, collector.maps(b), attention.topK())
          : attention(batch, b, length, collector.maps(b));
    }
    if (attention.stats()) {
      values[c++] = AttentionColumns.statsValue(collector.statSums(b), heads, batch.length(b));
    }
    if (attention.rollout()) {
      float[] rollout = collector.rollout(b);
      values[c++] = rollout == null ? null
          : matrix(expand(rollout, batch, batch.firstRow(b), batch.length(b), length), length);
    }
    if (attention.importance()) {
      double[] importance = collector.importance(b);
      values[c++] = importance == null ? null : UnsafeArrayData.fromPrimitiveArray(importance);
    }
    if (layout.withLogits() || layout.withScores() || layout.withLabel()) {
      // The head reads the sequence's final states: the first ([CLS]), their mean, or a
      // decoder's last that is not the pad token.
      ClassifierHead head = model.head(ClassifierHead.class).orElseThrow();
      int from = head.readFrom(read.ids(), batch.length(b));
      float[] logits = head.logits(batch.tokens(), (batch.firstRow(b) + from) * batch.width(),
          batch.length(b) - from);
      if (layout.withLogits()) {
        values[c++] = UnsafeArrayData.fromPrimitiveArray(logits);
      }
      if (layout.withScores()) {
        values[c++] = UnsafeArrayData.fromPrimitiveArray(head.scores(logits));
      }
      if (layout.withLabel()) {
        values[c++] = UTF8String.fromString(head.label(logits));
      }
    }
    if (layout.withTokenLabels() || layout.withEntities()) {
      TokenClassifierHead tokenHead = model.head(TokenClassifierHead.class).orElseThrow();
      int first = batch.firstRow(b);
      int real = batch.length(b);
      float[] scores = tokenHead.scores(batch.tokens(), first, real, batch.width());
      if (layout.withTokenLabels()) {
        String[] labels = new String[length];
        for (int r = 0; r < real; r++) {
          labels[batch.position(first + r)] = tokenHead.label(scores, r);
        }
        values[c++] = EntityColumns.labels(labels);
      }
      if (layout.withEntities()) {
        values[c] = EntityColumns.entities(Entities.of(read.text().codePoints(), read.ids(),
            read.tokens(), read.text().spans(), scores, tokenHead.labels(), wordRules,
            aggregation));
      }
    }
    return new GenericInternalRow(values);
  }

  /**
   * The row of one late chunk ({@link LateDocument}): the input's columns, the span's ids and
   * tokens, which chunk it is and where its text is, the span's token vectors when written and
   * its pooled vector, from the {@code length} states at row {@code first} of {@code states}
   * (the whole text's, width E).
   */
  InternalRow lateChunk(InternalRow input, int[] ids, String[] tokens, SequenceRead.Chunk chunk,
      float[] states, int first, int length, int width, EncoderModel model) {
    Object[] values = new Object[layout.width()];
    int c = keptAndTokens(input, ids, tokens, values);
    values[c++] = chunk.index();
    values[c++] = chunk.start();
    values[c++] = chunk.end();
    if (layout.withEmbeddings()) {
      Object[] vectors = new Object[length];
      for (int t = 0; t < length; t++) {
        vectors[t] = floats(states, (first + t) * width, width);
      }
      values[c++] = new GenericArrayData(vectors);
    }
    if (layout.withPooled()) {
      float[] pooled = pooled(states, first, length, width, SequenceRead.Accepted.of(length),
          model);
      values[c] = layout.quantization() == Quantization.NONE
          ? UnsafeArrayData.fromPrimitiveArray(pooled) : quantized(pooled);
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
    int skip = pooling == Pooling.FIRST ? 0
        : Math.max(0, Math.min(read.prompt().unpooled(), length - 1));
    float[] pooled = model.latent() == null ? pooling.pool(tokens, first + skip, length - skip,
        width) : pooling.pool(model.latent().apply(tokens, first + skip, length - skip), 0,
        length - skip, width);   // NV-Embed: its latent attention on the pooled tokens first
    for (DenseLayer dense : model.dense()) {
      pooled = dense.apply(pooled);
    }
    if (dimensions > 0 && dimensions < pooled.length) {
      pooled = Arrays.copyOf(pooled, dimensions);
    }
    if (normalize) {
      Pooling.normalize(pooled);
    }
    return pooled;
  }

  /**
   * The rows of a sequence of {@code length} tokens from row {@code first} that get ColBERT
   * vectors: PyLate's choice for its folders, else FlagEmbedding's, every token after the first
   * ({@code <s>}).
   */
  private int[] multiVectorRows(int[] ids, int first, int length) {
    int[] rows = new int[length];
    int count = 0;
    for (int t = late == null ? 1 : 0; t < length; t++) {
      if (late == null || late.keeps(ids[t])) {
        rows[count++] = first + t;
      }
    }
    return Arrays.copyOf(rows, count);
  }

  /**
   * SPLADE's vector of every sequence of the batch (its real tokens' states, no padding), or
   * null when none is written.
   */
  float[][] sparseVectors(TokenBatch batch, EncoderModel model) {
    return !layout.withSparse() ? null
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

  /** One struct (layer, head, top_keys (T, k'), top_weights (T, k')) per kept map. */
  private static ArrayData topKMaps(TokenBatch batch, int b, int length,
      List<AttentionCollector.Map> maps, int k) {
    int first = batch.firstRow(b);
    int real = batch.length(b);
    int kept = Math.min(k, real);
    int[] keys = new int[kept];
    float[] weights = new float[kept];
    UnsafeArrayData noInts = UnsafeArrayData.fromPrimitiveArray(new int[0]);
    UnsafeArrayData noFloats = UnsafeArrayData.fromPrimitiveArray(new float[0]);
    Object[] structs = new Object[maps.size()];
    for (int m = 0; m < maps.size(); m++) {
      AttentionCollector.Map map = maps.get(m);
      Object[] keyRows = new Object[length];
      Object[] weightRows = new Object[length];
      Arrays.fill(keyRows, noInts);
      Arrays.fill(weightRows, noFloats);
      for (int i = 0; i < real; i++) {
        int n = TopK.of(map.weights(), i * real, real, kept, keys, weights);
        int[] positions = new int[n];
        for (int j = 0; j < n; j++) {
          positions[j] = batch.position(first + keys[j]);
        }
        int query = batch.position(first + i);
        keyRows[query] = UnsafeArrayData.fromPrimitiveArray(positions);
        weightRows[query] = UnsafeArrayData.fromPrimitiveArray(Arrays.copyOf(weights, n));
      }
      structs[m] = new GenericInternalRow(new Object[] {map.layer(), map.head(),
          new GenericArrayData(keyRows), new GenericArrayData(weightRows)});
    }
    return new GenericArrayData(structs);
  }

  /** A pooled vector as its quantization writes it: bytes, or 0..255 as shorts. */
  private UnsafeArrayData quantized(float[] pooled) {
    Object values = layout.quantization().written(pooled, ranges);
    return values instanceof short[] shorts ? UnsafeArrayData.fromPrimitiveArray(shorts)
        : UnsafeArrayData.fromPrimitiveArray((byte[]) values);
  }

  /** The token id of each of sequence b's rows in the batch (its real tokens, in order). */
  private static int[] rowIds(int[] ids, TokenBatch batch, int b) {
    int first = batch.firstRow(b);
    int[] out = new int[batch.length(b)];
    for (int r = 0; r < out.length; r++) {
      out[r] = ids[batch.position(first + r)];
    }
    return out;
  }

  /** (count, width) row-major values as array<array<float>>. */
  private static ArrayData rows(float[] values, int count, int width) {
    Object[] rows = new Object[count];
    for (int r = 0; r < count; r++) {
      rows[r] = floats(values, r * width, width);
    }
    return new GenericArrayData(rows);
  }

  /** A (T, T) row-major matrix as array<array<float>>. */
  private static ArrayData matrix(float[] values, int length) {
    Object[] rows = new Object[length];
    for (int q = 0; q < length; q++) {
      rows[q] = floats(values, q * length, length);
    }
    return new GenericArrayData(rows);
  }

  /** (T, E): real tokens from the batch, zero vectors at padding. */
  private static ArrayData embeddings(TokenBatch batch, int b, int length) {
    int width = batch.width();
    UnsafeArrayData zero = null;
    Object[] tokens = new Object[length];
    int first = batch.firstRow(b);
    int real = batch.length(b);
    for (int r = 0; r < real; r++) {
      tokens[batch.position(first + r)] = floats(batch.tokens(), (first + r) * width, width);
    }
    for (int t = 0; t < length; t++) {
      if (tokens[t] == null) {
        zero = zero != null ? zero : UnsafeArrayData.fromPrimitiveArray(new float[width]);
        tokens[t] = zero;
      }
    }
    return new GenericArrayData(tokens);
  }

  /** One struct (layer, head, weights (T, T)) per kept map. */
  private static ArrayData attention(TokenBatch batch, int b, int length,
      List<AttentionCollector.Map> maps) {
    int first = batch.firstRow(b);
    int real = batch.length(b);
    Object[] structs = new Object[maps.size()];
    for (int m = 0; m < maps.size(); m++) {
      AttentionCollector.Map map = maps.get(m);
      float[] full = expand(map.weights(), batch, first, real, length);
      structs[m] = new GenericInternalRow(
          new Object[] {map.layer(), map.head(), matrix(full, length)});
    }
    return new GenericArrayData(structs);
  }

  /** (T_real, T_real) weights over real tokens to (T, T) over every position, zeros at padding. */
  private static float[] expand(float[] compact, TokenBatch batch, int first, int real,
      int length) {
    if (real == length) {
      return compact;
    }
    float[] full = new float[length * length];
    for (int i = 0; i < real; i++) {
      int q = batch.position(first + i);
      for (int j = 0; j < real; j++) {
        full[q * length + batch.position(first + j)] = compact[i * real + j];
      }
    }
    return full;
  }

  /** {@code count} floats of {@code source} from {@code offset}, as a Spark array. */
  private static UnsafeArrayData floats(float[] source, int offset, int count) {
    int byteOffset = Math.toIntExact(Platform.FLOAT_ARRAY_OFFSET + 4L * offset);
    return UnsafeArrayData.fromPrimitiveArray(source, byteOffset, count, 4);
  }
}
