package io.corpus.encoder.pipeline;

import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.config.InputKind;
import io.corpus.encoder.model.Quantization;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The columns of an encoder's output rows, in order, with their types: the input's columns (less
 * the token vectors, which the output replaces); with text input {@code input_ids} and
 * {@code tokens}; the token embeddings, the pooled vector, the maps, the statistics sums, the
 * rollout and the head importances, each when it has a name. Resolved once, on the driver; {@link OutputRows} fills rows
 * of exactly this layout.
 *
 * @param schema the output schema
 * @param keptOrdinals the input columns copied, by ordinal, in order
 * @param keptTypes their types
 * @param withTokens whether input_ids and tokens follow the kept columns
 * @param withTypeIds whether token_type_ids follows them (text pairs)
 * @param withChunks whether chunk, chunk_start and chunk_end follow (texts cut into windows)
 * @param chunkDocuments whether a text's windows become one row, with {@code chunks} instead
 *     (entities of texts cut into windows)
 * @param withEmbeddings whether the (T, E) token vectors are written
 * @param withPooled whether the pooled vector is written
 * @param quantization how it is written: floats (NONE), or quantized to array&lt;tinyint&gt;
 *     (int8, binary) or array&lt;smallint&gt; (uint8, ubinary: 0..255)
 * @param withSparse whether a sparse vector is written (indices, then values): SPLADE's or
 *     bge-m3's lexical weights
 * @param withMultiVectors whether ColBERT's vectors are written
 * @param attention which attention columns are written
 * @param withLogits whether a classifier head's logits are written
 * @param withScores whether its scores are written
 * @param withLabel whether the label of its largest logit is written
 * @param withTokenLabels whether a token classifier's label of every token is written
 * @param withEntities whether its entities are written (the last column)
 * @param tokenOrdinals the columns with a value per token (ids, tokens, token vectors, token
 *     labels), which a text's windows concatenate when they become one row
 */
record OutputLayout(StructType schema, int[] keptOrdinals, DataType[] keptTypes,
    boolean withTokens, boolean withTypeIds, boolean withChunks, boolean chunkDocuments,
    boolean withEmbeddings, boolean withPooled, Quantization quantization, boolean withSparse,
    boolean withMultiVectors,
    AttentionOutputs attention,
    boolean withLogits, boolean withScores, boolean withLabel, boolean withTokenLabels,
    boolean withEntities, int[] tokenOrdinals) implements Serializable {

  /** The output columns' names; "" for a column not written. */
  record Names(String embeddings, String pooled, String sparseIndices, String sparseValues,
      String multiVectors, String attention, String stats, String rollout, String importance,
      String logits, String scores,
      String label, String tokenLabels, String entities) {}

  static OutputLayout of(StructType input, InputColumns columns, Names names,
      AttentionOutputs attention, boolean chunks, Quantization quantization) {
    List<StructField> fields = new ArrayList<>();
    List<Integer> kept = new ArrayList<>();
    for (int i = 0; i < input.size(); i++) {
      if (!(columns.kind() == InputKind.EMBEDDINGS && i == columns.sequenceOrdinal())) {
        fields.add(input.fields()[i]);
        kept.add(i);
      }
    }
    boolean withTokens = columns.kind() == InputKind.TEXT;
    if (withTokens) {
      add(fields, InputKind.IDS_COLUMN, DataTypes.createArrayType(DataTypes.IntegerType, false),
          false);
      add(fields, InputKind.TOKENS_COLUMN,
          DataTypes.createArrayType(DataTypes.StringType, false), false);
    }
    boolean withTypeIds = withTokens && columns.hasPair();
    if (withTypeIds) {
      add(fields, InputKind.TYPE_IDS_COLUMN,
          DataTypes.createArrayType(DataTypes.IntegerType, false), false);
    }
    boolean chunkDocuments = chunks && !names.entities().isEmpty();
    if (chunkDocuments) {
      add(fields, InputKind.CHUNKS_COLUMN, DataTypes.IntegerType, false);
    } else if (chunks) {
      for (String column : new String[] {InputKind.CHUNK_COLUMN, InputKind.CHUNK_START_COLUMN,
          InputKind.CHUNK_END_COLUMN}) {
        add(fields, column, DataTypes.IntegerType, false);
      }
    }
    add(fields, names.embeddings(), AttentionColumns.floatMatrix(), false);
    add(fields, names.pooled(), DataTypes.createArrayType(quantization == Quantization.NONE
        ? DataTypes.FloatType : quantization.unsigned() ? DataTypes.ShortType
        : DataTypes.ByteType, false), false);
    add(fields, names.sparseIndices(), DataTypes.createArrayType(DataTypes.IntegerType, false),
        false);
    add(fields, names.sparseValues(), DataTypes.createArrayType(DataTypes.FloatType, false),
        false);
    add(fields, names.multiVectors(), AttentionColumns.floatMatrix(), false);
    add(fields, names.attention(), DataTypes.createArrayType(AttentionColumns.mapStruct(
        attention.format() == AttentionOutputs.MapFormat.TOP_K), false), false);
    add(fields, names.stats(), AttentionColumns.statsType(), false);
    add(fields, names.rollout(), AttentionColumns.floatMatrix(), true);
    add(fields, names.importance(), DataTypes.createArrayType(DataTypes.DoubleType, false), true);
    add(fields, names.logits(), DataTypes.createArrayType(DataTypes.FloatType, false), false);
    add(fields, names.scores(), DataTypes.createArrayType(DataTypes.FloatType, false), false);
    add(fields, names.label(), DataTypes.StringType, false);
    add(fields, names.tokenLabels(), EntityColumns.labelsType(), false);
    add(fields, names.entities(), EntityColumns.entitiesType(), false);
    int[] ordinals = kept.stream().mapToInt(Integer::intValue).toArray();
    DataType[] types = kept.stream().map(i -> input.fields()[i].dataType())
        .toArray(DataType[]::new);
    return new OutputLayout(new StructType(fields.toArray(new StructField[0])), ordinals, types,
        withTokens, withTypeIds, chunks && !chunkDocuments, chunkDocuments,
        !names.embeddings().isEmpty(), !names.pooled().isEmpty(), quantization,
        !names.sparseIndices().isEmpty(), !names.multiVectors().isEmpty(), attention,
        !names.logits().isEmpty(), !names.scores().isEmpty(), !names.label().isEmpty(),
        !names.tokenLabels().isEmpty(), !names.entities().isEmpty(),
        perToken(fields, names));
  }

  private static int[] perToken(List<StructField> fields, Names names) {
    List<String> perToken = List.of(InputKind.IDS_COLUMN, InputKind.TOKENS_COLUMN,
        names.embeddings(), names.tokenLabels());
    List<Integer> ordinals = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      if (!fields.get(i).name().isEmpty() && perToken.contains(fields.get(i).name())) {
        ordinals.add(i);
      }
    }
    return ordinals.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Adds a named column; "" adds none. An input column of that name is an error. */
  private static void add(List<StructField> fields, String name, DataType type,
      boolean nullable) {
    if (name.isEmpty()) {
      return;
    }
    if (fields.stream().anyMatch(f -> f.name().equals(name))) {
      throw new IllegalArgumentException("Output column " + name + " already exists in the input");
    }
    fields.add(DataTypes.createStructField(name, type, nullable));
  }

  /** How many values a row holds. */
  int width() {
    return schema.size();
  }
}
