package io.corpus.encoder.pipeline;

import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.config.InputKind;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The columns of an encoder's output rows, in order, with their types: the input's columns (less
 * the token vectors, which the output replaces); with text input {@code input_ids} and
 * {@code tokens} (and {@code token_type_ids} for text pairs); a chunk's number and offsets; then
 * each {@link OutputGroup} the job writes: the token vectors, the pooled vector, the sparse
 * vector, ColBERT's vectors, the attention columns, a classifier's and a token classifier's
 * outputs. Resolved once, on the driver; {@link OutputRows} fills rows of exactly this layout.
 *
 * @param schema the output schema
 * @param keptOrdinals the input columns copied, by ordinal, in order
 * @param keptTypes their types
 * @param withTokens whether input_ids and tokens follow the kept columns
 * @param withTypeIds whether token_type_ids follows them (text pairs)
 * @param withChunks whether chunk, chunk_start and chunk_end follow (texts cut into windows)
 * @param chunkDocuments whether a text's windows become one row, with {@code chunks} instead
 *     (entities of texts cut into windows)
 * @param groups the outputs' columns, in order
 * @param attention what attention outputs are asked for
 * @param tokenOrdinals the columns with a value per token (ids, tokens, token vectors, token
 *     labels), which a text's windows concatenate when they become one row
 */
record OutputLayout(StructType schema, int[] keptOrdinals, DataType[] keptTypes,
    boolean withTokens, boolean withTypeIds, boolean withChunks, boolean chunkDocuments,
    List<OutputGroup> groups, AttentionOutputs attention, int[] tokenOrdinals)
    implements Serializable {

  /**
   * The layout for an input of {@code schema}: its columns, the token and chunk columns, then
   * the columns of each of {@code groups} that has any ({@code chunks}: texts are cut into
   * windows; {@code attention}: the attention outputs asked for, which the attention group's
   * columns write).
   */
  static OutputLayout of(StructType input, InputColumns columns, boolean chunks,
      List<OutputGroup> groups, AttentionOutputs attention) {
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
      add(fields, DataTypes.createStructField(InputKind.IDS_COLUMN,
          DataTypes.createArrayType(DataTypes.IntegerType, false), false));
      add(fields, DataTypes.createStructField(InputKind.TOKENS_COLUMN,
          DataTypes.createArrayType(DataTypes.StringType, false), false));
    }
    boolean withTypeIds = withTokens && columns.hasPair();
    if (withTypeIds) {
      add(fields, DataTypes.createStructField(InputKind.TYPE_IDS_COLUMN,
          DataTypes.createArrayType(DataTypes.IntegerType, false), false));
    }
    List<OutputGroup> written = groups.stream().filter(group -> !group.fields().isEmpty())
        .toList();
    boolean chunkDocuments = chunks && entities(written);
    if (chunkDocuments) {
      add(fields, DataTypes.createStructField(InputKind.CHUNKS_COLUMN, DataTypes.IntegerType,
          false));
    } else if (chunks) {
      for (String column : new String[] {InputKind.CHUNK_COLUMN, InputKind.CHUNK_START_COLUMN,
          InputKind.CHUNK_END_COLUMN}) {
        add(fields, DataTypes.createStructField(column, DataTypes.IntegerType, false));
      }
    }
    written.forEach(group -> group.fields().forEach(field -> add(fields, field)));
    int[] ordinals = kept.stream().mapToInt(Integer::intValue).toArray();
    DataType[] types = kept.stream().map(i -> input.fields()[i].dataType())
        .toArray(DataType[]::new);
    return new OutputLayout(new StructType(fields.toArray(new StructField[0])), ordinals, types,
        withTokens, withTypeIds, chunks && !chunkDocuments, chunkDocuments, written, attention,
        perToken(fields, written));
  }

  /** The ordinals of the columns with a value per token. */
  private static int[] perToken(List<StructField> fields, List<OutputGroup> groups) {
    List<String> perToken = new ArrayList<>(List.of(InputKind.IDS_COLUMN,
        InputKind.TOKENS_COLUMN));
    groups.forEach(group -> perToken.addAll(group.perToken()));
    List<Integer> ordinals = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      if (perToken.contains(fields.get(i).name())) {
        ordinals.add(i);
      }
    }
    return ordinals.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Adds a column; an input column of that name is an error. */
  private static void add(List<StructField> fields, StructField field) {
    if (fields.stream().anyMatch(f -> f.name().equals(field.name()))) {
      throw new IllegalArgumentException("Output column " + field.name()
          + " already exists in the input");
    }
    fields.add(field);
  }

  /** The group of this kind the layout writes, if any. */
  <G extends OutputGroup> Optional<G> group(Class<G> kind) {
    return groups.stream().filter(kind::isInstance).map(kind::cast).findFirst();
  }

  /** Whether the layout writes a group of this kind. */
  boolean has(Class<? extends OutputGroup> kind) {
    return group(kind).isPresent();
  }

  /** Whether entities are written (a row's last column). */
  boolean withEntities() {
    return entities(groups);
  }

  private static boolean entities(List<OutputGroup> groups) {
    return groups.stream().anyMatch(group -> group instanceof OutputGroup.TokenLabels labels
        && !labels.entities().isEmpty());
  }

  /** How many values a row holds. */
  int width() {
    return schema.size();
  }
}
