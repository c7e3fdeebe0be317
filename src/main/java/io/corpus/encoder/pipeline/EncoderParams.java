package io.corpus.encoder.pipeline;

import io.corpus.encoder.config.Setting;
import io.corpus.encoder.config.Settings;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntArrayParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.StringArrayParam;
import scala.Function1;

/**
 * The params of {@link EncoderTransformer}; the transformer adds the setters and the work. Those
 * that mirror a job setting are made from its {@link Setting} (name, doc, default, rule), so the
 * two cannot disagree. Spark ML finds params through the no-argument accessors below, and saves
 * and loads them by these names.
 *
 * <p>The model: {@code modelPath} (a Hugging Face folder; the architecture comes from its
 * config.json) or {@code weightsPath} with {@code heads} and the other architecture params.
 * The input: exactly one of {@code inputCol} (token vectors), {@code idsCol} (token ids) and
 * {@code textCol} (text).
 */
public abstract class EncoderParams extends Transformer {
  private final String uid;
  final Param<String> modelPath;
  final Param<String> weightsPath;
  final Param<String> naming;
  final IntParam heads;
  final Param<String> activation;
  final BooleanParam normFirst;
  final BooleanParam finalNorm;
  final DoubleParam layerNormEps;
  final BooleanParam causal;
  final IntParam window;
  final Param<String> positional;
  final Param<String> precision;
  final Param<String> idCol;
  final Param<String> inputCol;
  final Param<String> idsCol;
  final Param<String> typeIdsCol;
  final Param<String> textCol;
  final StringArrayParam textPairCols;
  final Param<String> maskCol;
  final IntParam maxTokens;
  final Param<String> onTooLong;
  final IntParam chunkOverlap;
  final Param<String> prompt;
  final Param<String> promptName;
  final Param<String> outputCol;
  final Param<String> pooledCol;
  final Param<String> pooling;
  final Param<String> normalize;
  final IntParam dimensions;
  final Param<String> attentionCol;
  final IntArrayParam attentionLayers;
  final IntArrayParam attentionHeads;
  final DoubleParam attentionSample;
  final StringArrayParam attentionIds;
  final Param<String> attentionFormat;
  final IntParam attentionTopK;
  final BooleanParam attentionAverageHeads;
  final Param<String> statsCol;
  final Param<String> rolloutCol;
  final Param<String> logitsCol;
  final Param<String> scoresCol;
  final Param<String> labelCol;
  final Param<String> entities;
  final IntParam sparseTopK;
  final Param<String> sparseIndicesCol;
  final Param<String> sparseValuesCol;
  final Param<String> tokenLabelsCol;
  final Param<String> entitiesCol;
  final IntParam batchTokens;
  final IntParam maxLength;
  final Param<String> handleInvalid;

  EncoderParams(String uid) {
    this.uid = uid;
    modelPath = param(Settings.MODEL_PATH);
    weightsPath = param(Settings.MODEL_WEIGHTS);
    naming = param(Settings.NAMING);
    heads = intParam(Settings.HEADS);
    activation = param(Settings.ACTIVATION);
    normFirst = flagParam(Settings.NORM_FIRST);
    finalNorm = flagParam(Settings.FINAL_NORM);
    layerNormEps = doubleParam(Settings.LAYER_NORM_EPS);
    causal = flagParam(Settings.CAUSAL);
    window = intParam(Settings.WINDOW);
    positional = param(Settings.POSITIONAL);
    precision = param(Settings.PRECISION);
    idCol = param(Settings.ID_COLUMN);
    inputCol = param(Settings.EMBEDDINGS_COLUMN);
    idsCol = param(Settings.IDS_COLUMN);
    typeIdsCol = param(Settings.TYPE_IDS_COLUMN);
    textCol = param(Settings.TEXT_COLUMN);
    textPairCols = stringsParam(Settings.TEXT_PAIR_COLUMNS);
    maskCol = param(Settings.MASK_COLUMN);
    maxTokens = intParam(Settings.MAX_TOKENS);
    onTooLong = param(Settings.ON_TOO_LONG);
    chunkOverlap = intParam(Settings.CHUNK_OVERLAP);
    prompt = param(Settings.PROMPT);
    promptName = param(Settings.PROMPT_NAME);
    pooling = param(Settings.POOLING);
    normalize = param(Settings.NORMALIZE);
    dimensions = intParam(Settings.DIMENSIONS);
    entities = param(Settings.ENTITIES);
    sparseTopK = intParam(Settings.SPARSE_TOP_K);
    attentionLayers = indicesParam(Settings.ATTENTION_LAYERS);
    attentionHeads = indicesParam(Settings.ATTENTION_HEADS);
    attentionSample = doubleParam(Settings.ATTENTION_SAMPLE);
    attentionIds = stringsParam(Settings.ATTENTION_IDS);
    attentionFormat = param(Settings.ATTENTION_FORMAT);
    attentionTopK = intParam(Settings.ATTENTION_TOP_K);
    attentionAverageHeads = flagParam(Settings.ATTENTION_AVERAGE_HEADS);
    batchTokens = intParam(Settings.BATCH_TOKENS);
    maxLength = intParam(Settings.MAX_LENGTH);
    // The Transformer's own params: which columns to make, what to do with an invalid row.
    outputCol = new Param<>(uid, "outputCol", "output token vectors, array<array<float>>; '' = "
        + "not written");
    pooledCol = new Param<>(uid, "pooledCol", "pooled sentence vector, array<float>");
    attentionCol = new Param<>(uid, "attentionCol", "attention maps column; '' = no maps");
    statsCol = new Param<>(uid, "statsCol",
        "per-head attention statistics sums column; '' = none");
    rolloutCol = new Param<>(uid, "rolloutCol", "attention rollout column; '' = none");
    logitsCol = new Param<>(uid, "logitsCol", "a classifier folder's logits, array<float>; "
        + "'' = not written");
    scoresCol = new Param<>(uid, "scoresCol", "a classifier folder's scores (sigmoid, softmax "
        + "or as its CrossEncoder config says), array<float>; '' = not written");
    labelCol = new Param<>(uid, "labelCol", "a classifier folder's label of the largest logit "
        + "(when it has more than one label), string; '' = not written");
    sparseIndicesCol = new Param<>(uid, "sparseIndicesCol", "SPLADE's vocabulary ids, "
        + "ascending, array<int>");
    sparseValuesCol = new Param<>(uid, "sparseValuesCol", "SPLADE's values at those ids, "
        + "array<float>");
    tokenLabelsCol = new Param<>(uid, "tokenLabelsCol", "a token classifier's label of every "
        + "token, array<string>; '' = not written");
    entitiesCol = new Param<>(uid, "entitiesCol", "a token classifier's entities, "
        + "array<struct<label, start, end, score, text>>; '' = not written");
    handleInvalid = new Param<>(uid, "handleInvalid",
        "invalid rows: error (fail the job) or skip (drop them, counted)",
        ParamValidators.inArray(new String[] {"error", "skip"}));
    setDefault(outputCol, "embeddings");
    setDefault(pooledCol, "pooled");
    setDefault(attentionCol, "");
    setDefault(statsCol, "");
    setDefault(rolloutCol, "");
    setDefault(logitsCol, "logits");
    setDefault(scoresCol, "scores");
    setDefault(labelCol, "label");
    setDefault(tokenLabelsCol, "token_labels");
    setDefault(sparseIndicesCol, "sparse_indices");
    setDefault(sparseValuesCol, "sparse_values");
    setDefault(entitiesCol, "entities");
    setDefault(handleInvalid, "error");
  }

  // Params made from a Setting: its param name, doc, default and rule (checked when set).

  private Param<String> param(Setting<String> s) {
    Param<String> p = new Param<>(uid, s.param(), s.doc(), valid(s));
    setDefault(p, s.defaultValue());
    return p;
  }

  @SuppressWarnings("unchecked")
  private IntParam intParam(Setting<Integer> s) {
    IntParam p = new IntParam(uid, s.param(), s.doc(),
        (Function1<Object, Object>) (Object) valid(s));
    setDefault(p, s.defaultValue());
    return p;
  }

  @SuppressWarnings("unchecked")
  private DoubleParam doubleParam(Setting<Double> s) {
    DoubleParam p = new DoubleParam(uid, s.param(), s.doc(),
        (Function1<Object, Object>) (Object) valid(s));
    setDefault(p, s.defaultValue());
    return p;
  }

  private BooleanParam flagParam(Setting<Boolean> s) {
    BooleanParam p = new BooleanParam(uid, s.param(), s.doc());
    setDefault(p, s.defaultValue());
    return p;
  }

  private IntArrayParam indicesParam(Setting<List<Integer>> s) {
    IntArrayParam p = new IntArrayParam(this, s.param(), s.doc(),
        values -> s.accepts(Arrays.stream(values).boxed().toList()));
    setDefault(p, new int[0]);
    return p;
  }

  private StringArrayParam stringsParam(Setting<List<String>> s) {
    StringArrayParam p = new StringArrayParam(this, s.param(), s.doc(),
        values -> s.accepts(List.of(values)));
    setDefault(p, new String[0]);
    return p;
  }

  private static <T> Function1<T, Object> valid(Setting<T> s) {
    return value -> s.accepts(value);
  }

  @Override
  public String uid() {
    return uid;
  }

  // Accessors, one per param: Spark ML finds params through them.
  public Param<String> modelPath() { return modelPath; }
  public Param<String> weightsPath() { return weightsPath; }
  public Param<String> naming() { return naming; }
  public IntParam heads() { return heads; }
  public Param<String> activation() { return activation; }
  public BooleanParam normFirst() { return normFirst; }
  public BooleanParam finalNorm() { return finalNorm; }
  public DoubleParam layerNormEps() { return layerNormEps; }
  public BooleanParam causal() { return causal; }
  public IntParam window() { return window; }
  public Param<String> positional() { return positional; }
  public Param<String> precision() { return precision; }
  public Param<String> idCol() { return idCol; }
  public Param<String> inputCol() { return inputCol; }
  public Param<String> idsCol() { return idsCol; }
  public Param<String> typeIdsCol() { return typeIdsCol; }
  public Param<String> textCol() { return textCol; }
  public StringArrayParam textPairCols() { return textPairCols; }
  public Param<String> maskCol() { return maskCol; }
  public IntParam maxTokens() { return maxTokens; }
  public Param<String> onTooLong() { return onTooLong; }
  public IntParam chunkOverlap() { return chunkOverlap; }
  public Param<String> prompt() { return prompt; }
  public Param<String> promptName() { return promptName; }
  public Param<String> outputCol() { return outputCol; }
  public Param<String> pooledCol() { return pooledCol; }
  public Param<String> pooling() { return pooling; }
  public Param<String> normalize() { return normalize; }
  public IntParam dimensions() { return dimensions; }
  public Param<String> attentionCol() { return attentionCol; }
  public IntArrayParam attentionLayers() { return attentionLayers; }
  public IntArrayParam attentionHeads() { return attentionHeads; }
  public DoubleParam attentionSample() { return attentionSample; }
  public StringArrayParam attentionIds() { return attentionIds; }
  public Param<String> attentionFormat() { return attentionFormat; }
  public IntParam attentionTopK() { return attentionTopK; }
  public BooleanParam attentionAverageHeads() { return attentionAverageHeads; }
  public Param<String> statsCol() { return statsCol; }
  public Param<String> rolloutCol() { return rolloutCol; }
  public Param<String> logitsCol() { return logitsCol; }
  public Param<String> scoresCol() { return scoresCol; }
  public Param<String> labelCol() { return labelCol; }
  public Param<String> entities() { return entities; }
  public IntParam sparseTopK() { return sparseTopK; }
  public Param<String> sparseIndicesCol() { return sparseIndicesCol; }
  public Param<String> sparseValuesCol() { return sparseValuesCol; }
  public Param<String> tokenLabelsCol() { return tokenLabelsCol; }
  public Param<String> entitiesCol() { return entitiesCol; }
  public IntParam batchTokens() { return batchTokens; }
  public IntParam maxLength() { return maxLength; }
  public Param<String> handleInvalid() { return handleInvalid; }

  // IntParam and BooleanParam are Param<Object> to Java: Scala's Int and Boolean, boxed.
  int intValue(IntParam p) {
    return (Integer) $(p);
  }

  boolean flag(BooleanParam p) {
    return (Boolean) $(p);
  }

  double doubleValue(DoubleParam p) {
    return (Double) $(p);
  }
}
