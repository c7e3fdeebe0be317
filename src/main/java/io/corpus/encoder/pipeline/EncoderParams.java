package io.corpus.encoder.pipeline;

import io.corpus.encoder.common.ConfigName;
import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.PositionalEncoding;
import io.corpus.encoder.weights.TensorNaming;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntArrayParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.StringArrayParam;

/**
 * The params of {@link EncoderTransformer}, their defaults and meanings; the transformer adds the
 * setters and the work. Spark ML finds params through the no-argument accessors below, and saves
 * and loads them by these names.
 *
 * <p>The model: {@code modelPath} (a Hugging Face folder; the architecture comes from its
 * config.json) or {@code weightsPath} with {@code heads} and the other architecture params.
 * The input: exactly one of {@code inputCol} (token vectors), {@code idsCol} (token ids) and
 * {@code textCol} (text).
 */
public abstract class EncoderParams extends Transformer {
  /** Values of {@link #normalize}: auto follows the model folder's Normalize module. */
  static final String[] NORMALIZE_VALUES = {"auto", "true", "false"};
  /** What {@link #pooling} adds to the {@link Pooling} names: the folder's 1_Pooling mode. */
  static final String AUTO = "auto";

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
  final Param<String> idCol;
  final Param<String> inputCol;
  final Param<String> idsCol;
  final Param<String> typeIdsCol;
  final Param<String> textCol;
  final Param<String> maskCol;
  final IntParam maxTokens;
  final Param<String> onTooLong;
  final Param<String> outputCol;
  final Param<String> pooledCol;
  final Param<String> pooling;
  final Param<String> normalize;
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
  final IntParam batchTokens;
  final IntParam maxLength;
  final Param<String> handleInvalid;

  EncoderParams(String uid) {
    this.uid = uid;
    modelPath = new Param<>(uid, "modelPath", "Hugging Face model folder (BERT family); '' = "
        + "use weightsPath");
    weightsPath = new Param<>(uid, "weightsPath", "safetensors file of the encoder layers");
    naming = new Param<>(uid, "naming", "tensor naming: pytorch or bert",
        ParamValidators.inArray(ConfigName.names(TensorNaming.values())));
    heads = new IntParam(uid, "heads", "attention heads H", ParamValidators.gtEq(1));
    activation = new Param<>(uid, "activation", "relu, gelu or gelu-tanh",
        ParamValidators.inArray(ConfigName.names(Activation.values())));
    normFirst = new BooleanParam(uid, "normFirst", "pre-LN (true) or post-LN (false)");
    finalNorm = new BooleanParam(uid, "finalNorm", "final LayerNorm after the last layer");
    layerNormEps = new DoubleParam(uid, "layerNormEps", "LayerNorm eps", ParamValidators.gt(0));
    causal = new BooleanParam(uid, "causal", "queries attend only to keys at or before them");
    window = new IntParam(uid, "window", "|query - key| <= window; 0 = none",
        ParamValidators.gtEq(0));
    positional = new Param<>(uid, "positional", "none, sinusoidal or learned",
        ParamValidators.inArray(ConfigName.names(PositionalEncoding.values())));
    idCol = new Param<>(uid, "idCol", "row id column, named in errors");
    inputCol = new Param<>(uid, "inputCol", "array<array<float|double>> token vectors");
    idsCol = new Param<>(uid, "idsCol", "array<int|bigint> token ids; '' = not this input");
    typeIdsCol = new Param<>(uid, "typeIdsCol", "array<int|bigint> token type ids; '' = all 0");
    textCol = new Param<>(uid, "textCol", "string text, tokenized with the model folder's "
        + "tokenizer.json; '' = not this input");
    maskCol = new Param<>(uid, "maskCol", "array<int|boolean> mask, 1 = real token; '' = none");
    maxTokens = new IntParam(uid, "maxTokens", "most tokens of token ids or text; 0 = the "
        + "folder's max_seq_length, else max_position_embeddings", ParamValidators.gtEq(0));
    onTooLong = new Param<>(uid, "onTooLong", "longer token ids or text: truncate or reject",
        ParamValidators.inArray(new String[] {"truncate", "reject"}));
    outputCol = new Param<>(uid, "outputCol", "output token vectors, array<array<float>>; '' = "
        + "not written");
    pooledCol = new Param<>(uid, "pooledCol", "pooled sentence vector, array<float>");
    pooling = new Param<>(uid, "pooling", "mean, first, max, none, or auto (the folder's "
        + "1_Pooling, else mean)", ParamValidators.inArray(poolingValues()));
    normalize = new Param<>(uid, "normalize", "L2-normalize the pooled vector: true, false or "
        + "auto (the folder's Normalize module)", ParamValidators.inArray(NORMALIZE_VALUES));
    attentionCol = new Param<>(uid, "attentionCol", "attention maps column; '' = no maps");
    attentionLayers = new IntArrayParam(this, "attentionLayers",
        "layers whose maps are kept, 0-based", EncoderParams::noneNegative);
    attentionHeads = new IntArrayParam(this, "attentionHeads",
        "heads whose maps are kept, 0-based", EncoderParams::noneNegative);
    attentionSample = new DoubleParam(uid, "attentionSample",
        "fraction of sequences whose maps and rollout are kept, by a stable hash of the id",
        ParamValidators.inRange(0, 1, false, true));
    attentionIds = new StringArrayParam(this, "attentionIds",
        "ids whose maps and rollout are kept; empty = by attentionSample");
    attentionFormat = new Param<>(uid, "attentionFormat", "full or top-k",
        ParamValidators.inArray(ConfigName.names(AttentionOutputs.MapFormat.values())));
    attentionTopK = new IntParam(uid, "attentionTopK", "k of the top-k format",
        ParamValidators.gtEq(1));
    attentionAverageHeads = new BooleanParam(uid, "attentionAverageHeads",
        "one map per layer, the mean of the kept heads, with head = -1");
    statsCol = new Param<>(uid, "statsCol",
        "per-head attention statistics sums column; '' = none");
    rolloutCol = new Param<>(uid, "rolloutCol", "attention rollout column; '' = none");
    batchTokens = new IntParam(uid, "batchTokens", "tokens per forward batch",
        ParamValidators.gtEq(1));
    maxLength = new IntParam(uid, "maxLength", "longest token-vector sequence accepted; 0 = any",
        ParamValidators.gtEq(0));
    handleInvalid = new Param<>(uid, "handleInvalid",
        "invalid rows: error (fail the job) or skip (drop them, counted)",
        ParamValidators.inArray(new String[] {"error", "skip"}));
    setDefault(modelPath, "");
    setDefault(weightsPath, "");
    setDefault(naming, TensorNaming.PYTORCH.configName());
    setDefault(activation, Activation.RELU.configName());
    setDefault(normFirst, false);
    setDefault(finalNorm, false);
    setDefault(layerNormEps, 1e-5);
    setDefault(causal, false);
    setDefault(window, 0);
    setDefault(positional, PositionalEncoding.NONE.configName());
    setDefault(idCol, "id");
    setDefault(inputCol, "embeddings");
    setDefault(idsCol, "");
    setDefault(typeIdsCol, "");
    setDefault(textCol, "");
    setDefault(maskCol, "");
    setDefault(maxTokens, 0);
    setDefault(onTooLong, "truncate");
    setDefault(outputCol, "embeddings");
    setDefault(pooledCol, "pooled");
    setDefault(pooling, AUTO);
    setDefault(normalize, AUTO);
    setDefault(attentionCol, "");
    setDefault(attentionLayers, new int[0]);
    setDefault(attentionHeads, new int[0]);
    setDefault(attentionSample, 1.0);
    setDefault(attentionIds, new String[0]);
    setDefault(attentionFormat, AttentionOutputs.MapFormat.FULL.configName());
    setDefault(attentionTopK, 8);
    setDefault(attentionAverageHeads, false);
    setDefault(statsCol, "");
    setDefault(rolloutCol, "");
    setDefault(batchTokens, 4096);
    setDefault(maxLength, 0);
    setDefault(handleInvalid, "error");
  }

  /** Indices are 0-based: a negative one is refused when the param is set. */
  private static Object noneNegative(int[] values) {
    return java.util.Arrays.stream(values).allMatch(v -> v >= 0);
  }

  private static String[] poolingValues() {
    String[] names = ConfigName.names(Pooling.values());
    String[] values = java.util.Arrays.copyOf(names, names.length + 1);
    values[names.length] = AUTO;
    return values;
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
  public Param<String> idCol() { return idCol; }
  public Param<String> inputCol() { return inputCol; }
  public Param<String> idsCol() { return idsCol; }
  public Param<String> typeIdsCol() { return typeIdsCol; }
  public Param<String> textCol() { return textCol; }
  public Param<String> maskCol() { return maskCol; }
  public IntParam maxTokens() { return maxTokens; }
  public Param<String> onTooLong() { return onTooLong; }
  public Param<String> outputCol() { return outputCol; }
  public Param<String> pooledCol() { return pooledCol; }
  public Param<String> pooling() { return pooling; }
  public Param<String> normalize() { return normalize; }
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
