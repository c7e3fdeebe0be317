package io.corpus.encoder.pipeline;

import io.corpus.encoder.common.ConfigName;
import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.PositionalEncoding;
import io.corpus.encoder.weights.TensorNaming;
import io.corpus.encoder.weights.WeightsLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntArrayParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.StringArrayParam;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Transformer-encoder layers as a Spark ML {@link Transformer}: from a column of embedded sequences
 * to contextual embeddings, a pooled vector and, on request, attention maps.
 *
 * <pre>{@code
 * Dataset<Row> out = new EncoderTransformer()
 *     .setWeightsPath("model.safetensors").setHeads(12).setActivation("gelu")
 *     .transform(sequences);
 * }</pre>
 *
 * <p>{@link #transformSchema} checks the input schema on the driver, before any task runs. The
 * weights are read on the driver on the first {@code transform} and broadcast once per call
 * (handed over in memory with a local master: see {@link WeightsHandle}).
 * Output columns: every input column except {@code inputCol}, then {@code outputCol}
 * (array<array<float>>), {@code pooledCol} (array<float>, unless pooling is none) and
 * {@code attentionCol} (array of struct layer, head, weights, or top_keys and top_weights),
 * {@code statsCol} and {@code rolloutCol}, each only when set: see {@link AttentionColumns}.
 */
public final class EncoderTransformer extends Transformer {
  private final String uid;
  private final Param<String> weightsPath;
  private final Param<String> naming;
  private final IntParam heads;
  private final Param<String> activation;
  private final BooleanParam normFirst;
  private final BooleanParam finalNorm;
  private final DoubleParam layerNormEps;
  private final BooleanParam causal;
  private final IntParam window;
  private final Param<String> positional;
  private final Param<String> idCol;
  private final Param<String> inputCol;
  private final Param<String> maskCol;
  private final Param<String> outputCol;
  private final Param<String> pooledCol;
  private final Param<String> pooling;
  private final Param<String> attentionCol;
  private final IntArrayParam attentionLayers;
  private final IntArrayParam attentionHeads;
  private final DoubleParam attentionSample;
  private final StringArrayParam attentionIds;
  private final Param<String> attentionFormat;
  private final IntParam attentionTopK;
  private final BooleanParam attentionAverageHeads;
  private final Param<String> statsCol;
  private final Param<String> rolloutCol;
  private final IntParam batchTokens;
  private final IntParam maxLength;
  private final Param<String> handleInvalid;

  private transient EncoderWeights loadedWeights;
  private transient String loadedKey;
  private transient EncodeMetrics metrics;

  public EncoderTransformer() {
    this(Identifiable$.MODULE$.randomUID("encoder"));
  }

  public EncoderTransformer(String uid) {
    this.uid = uid;
    weightsPath = new Param<>(uid, "weightsPath", "safetensors file of the encoder weights");
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
    maskCol = new Param<>(uid, "maskCol", "array<int|boolean> mask, 1 = real token; '' = none");
    outputCol = new Param<>(uid, "outputCol", "output token vectors, array<array<float>>");
    pooledCol = new Param<>(uid, "pooledCol", "pooled sentence vector, array<float>");
    pooling = new Param<>(uid, "pooling", "mean, first, max or none",
        ParamValidators.inArray(ConfigName.names(Pooling.values())));
    attentionCol = new Param<>(uid, "attentionCol", "attention maps column; '' = no maps");
    attentionLayers = new IntArrayParam(this, "attentionLayers", "layers whose maps are kept");
    attentionHeads = new IntArrayParam(this, "attentionHeads", "heads whose maps are kept");
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
    maxLength = new IntParam(uid, "maxLength", "longest sequence accepted; 0 = any",
        ParamValidators.gtEq(0));
    handleInvalid = new Param<>(uid, "handleInvalid",
        "invalid rows: error (fail the job) or skip (drop them, counted)",
        ParamValidators.inArray(new String[] {"error", "skip"}));
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
    setDefault(maskCol, "");
    setDefault(outputCol, "embeddings");
    setDefault(pooledCol, "pooled");
    setDefault(pooling, Pooling.MEAN.configName());
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

  @Override
  public String uid() {
    return uid;
  }

  // Params, in the order of the class comment. Spark ML finds them through these accessors.
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
  public Param<String> maskCol() { return maskCol; }
  public Param<String> outputCol() { return outputCol; }
  public Param<String> pooledCol() { return pooledCol; }
  public Param<String> pooling() { return pooling; }
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

  public EncoderTransformer setWeightsPath(String v) { set(weightsPath, v); return this; }
  public EncoderTransformer setNaming(String v) { set(naming, v); return this; }
  public EncoderTransformer setHeads(int v) { set(heads, v); return this; }
  public EncoderTransformer setActivation(String v) { set(activation, v); return this; }
  public EncoderTransformer setNormFirst(boolean v) { set(normFirst, v); return this; }
  public EncoderTransformer setFinalNorm(boolean v) { set(finalNorm, v); return this; }
  public EncoderTransformer setLayerNormEps(double v) { set(layerNormEps, v); return this; }
  public EncoderTransformer setCausal(boolean v) { set(causal, v); return this; }
  public EncoderTransformer setWindow(int v) { set(window, v); return this; }
  public EncoderTransformer setPositional(String v) { set(positional, v); return this; }
  public EncoderTransformer setIdCol(String v) { set(idCol, v); return this; }
  public EncoderTransformer setInputCol(String v) { set(inputCol, v); return this; }
  public EncoderTransformer setMaskCol(String v) { set(maskCol, v); return this; }
  public EncoderTransformer setOutputCol(String v) { set(outputCol, v); return this; }
  public EncoderTransformer setPooledCol(String v) { set(pooledCol, v); return this; }
  public EncoderTransformer setPooling(String v) { set(pooling, v); return this; }
  public EncoderTransformer setAttentionCol(String v) { set(attentionCol, v); return this; }
  public EncoderTransformer setAttentionLayers(int[] v) { set(attentionLayers, v); return this; }
  public EncoderTransformer setAttentionHeads(int[] v) { set(attentionHeads, v); return this; }
  public EncoderTransformer setAttentionSample(double v) { set(attentionSample, v); return this; }
  public EncoderTransformer setAttentionIds(String[] v) { set(attentionIds, v); return this; }
  public EncoderTransformer setAttentionFormat(String v) { set(attentionFormat, v); return this; }
  public EncoderTransformer setAttentionTopK(int v) { set(attentionTopK, v); return this; }
  public EncoderTransformer setAttentionAverageHeads(boolean v) {
    set(attentionAverageHeads, v);
    return this;
  }
  public EncoderTransformer setStatsCol(String v) { set(statsCol, v); return this; }
  public EncoderTransformer setRolloutCol(String v) { set(rolloutCol, v); return this; }
  public EncoderTransformer setBatchTokens(int v) { set(batchTokens, v); return this; }
  public EncoderTransformer setMaxLength(int v) { set(maxLength, v); return this; }
  public EncoderTransformer setHandleInvalid(String v) { set(handleInvalid, v); return this; }

  /** Counters this transformer's tasks add to; without them, fresh ones are made per call. */
  public EncoderTransformer setMetrics(EncodeMetrics metrics) {
    this.metrics = metrics;
    return this;
  }

  /** The model settings these params describe. */
  public ModelSettings modelSettings() {
    if (!isDefined(heads)) {
      throw new IllegalArgumentException("Param heads must be set (the number of attention heads)");
    }
    return new ModelSettings(intValue(heads), Activation.fromConfigName($(activation)),
        flag(normFirst), flag(finalNorm), (Double) $(layerNormEps), flag(causal), intValue(window),
        PositionalEncoding.fromConfigName($(positional)));
  }

  /** The weights, read from {@code weightsPath} on the driver once and kept for later calls. */
  public EncoderWeights weights() {
    if (!isDefined(weightsPath)) {
      throw new IllegalArgumentException("Param weightsPath must be set");
    }
    if (loadedWeights == null || !Objects.equals(weightsKey(), loadedKey)) {
      loadedWeights = WeightsLoader.load(Path.of($(weightsPath)),
          TensorNaming.fromConfigName($(naming)), modelSettings());
      loadedKey = weightsKey();
    }
    return loadedWeights;
  }

  private String weightsKey() {
    return $(weightsPath) + "|" + $(naming) + "|" + modelSettings();
  }

  /**
   * Uses weights the caller already loaded (and checked) for the current params, instead of
   * reading {@code weightsPath} again.
   */
  public EncoderTransformer setLoadedWeights(EncoderWeights w) {
    loadedWeights = w;
    loadedKey = weightsKey();
    return this;
  }

  @Override
  public StructType transformSchema(StructType schema) {
    new InputColumns(schema, $(idCol), $(inputCol), $(maskCol));
    List<StructField> fields = new ArrayList<>();
    for (StructField f : schema.fields()) {
      if (!f.name().equals($(inputCol))) {
        fields.add(f);
      }
    }
    addOutput(fields, $(outputCol), DataTypes.createArrayType(
        DataTypes.createArrayType(DataTypes.FloatType, false), false));
    if (withPooled()) {
      addOutput(fields, $(pooledCol), DataTypes.createArrayType(DataTypes.FloatType, false));
    }
    if (withAttention()) {
      addOutput(fields, $(attentionCol), DataTypes.createArrayType(
          AttentionColumns.mapStruct(topKFormat()), false));
    }
    if (!$(statsCol).isEmpty()) {
      addOutput(fields, $(statsCol), AttentionColumns.statsType());
    }
    if (!$(rolloutCol).isEmpty()) {
      addOutput(fields, $(rolloutCol), AttentionColumns.floatMatrix(), true);
    }
    return new StructType(fields.toArray(new StructField[0]));
  }

  private static void addOutput(List<StructField> fields, String name, DataType type) {
    addOutput(fields, name, type, false);
  }

  private static void addOutput(List<StructField> fields, String name, DataType type,
      boolean nullable) {
    if (fields.stream().anyMatch(f -> f.name().equals(name))) {
      throw new IllegalArgumentException("Output column " + name + " already exists in the input");
    }
    fields.add(DataTypes.createStructField(name, type, nullable));
  }

  private boolean topKFormat() {
    return $(attentionFormat).equals(AttentionOutputs.MapFormat.TOP_K.configName());
  }

  /** What the attention params ask for. */
  public AttentionOutputs attentionOutputs() {
    return new AttentionOutputs(withAttention(), boxed($(attentionLayers)),
        boxed($(attentionHeads)), (Double) $(attentionSample), new java.util.TreeSet<>(List.of($(attentionIds))),
        ConfigName.parse(AttentionOutputs.MapFormat.values(), $(attentionFormat), "format"),
        intValue(attentionTopK), flag(attentionAverageHeads), !$(statsCol).isEmpty(),
        !$(rolloutCol).isEmpty());
  }

  /** Refuses layer and head indices the model does not have, naming them. */
  private static void checkIndices(AttentionOutputs outputs, EncoderWeights w, int heads) {
    for (int layer : outputs.layers()) {
      if (layer >= w.layerCount()) {
        throw new IllegalArgumentException("Attention layer " + layer + " does not exist: the "
            + "model has " + w.layerCount() + " layers (0-based)");
      }
    }
    for (int head : outputs.heads()) {
      if (head >= heads) {
        throw new IllegalArgumentException("Attention head " + head + " does not exist: the "
            + "model has " + heads + " heads (0-based)");
      }
    }
  }

  private boolean withPooled() {
    return !$(pooling).equals(Pooling.NONE.configName());
  }

  private boolean withAttention() {
    return !$(attentionCol).isEmpty();
  }

  @Override
  public Dataset<Row> transform(Dataset<?> dataset) {
    StructType inputSchema = dataset.schema();
    StructType outputSchema = transformSchema(inputSchema);
    ModelSettings settings = modelSettings();
    EncoderWeights w = weights();
    SparkSession spark = dataset.sparkSession();
    InputColumns columns = new InputColumns(inputSchema, $(idCol), $(inputCol), $(maskCol));
    int[] kept = IntStream.range(0, inputSchema.size())
        .filter(i -> i != columns.embeddingsOrdinal()).toArray();
    DataType[] keptTypes = Arrays.stream(kept)
        .mapToObj(i -> inputSchema.fields()[i].dataType()).toArray(DataType[]::new);
    SequenceReader reader = sequenceReader(columns, w, settings);
    AttentionOutputs attention = attentionOutputs();
    checkIndices(attention, w, settings.heads());
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    WeightsHandle handle = WeightsHandle.of(jsc, w);
    EncodeMetrics m = metrics != null ? metrics : new EncodeMetrics(spark.sparkContext());
    PartitionEncoder encode = new PartitionEncoder(handle, settings, columns, reader,
        new OutputRows(kept, keptTypes, withPooled(), attention, settings.heads()),
        Pooling.fromConfigName($(pooling)), attention, intValue(batchTokens),
        $(handleInvalid).equals("error"), m);
    JavaRDD<InternalRow> rows = dataset.toDF().queryExecution().toRdd().toJavaRDD();
    return InternalRows.toDataFrame(spark, rows.mapPartitions(encode), outputSchema);
  }

  /**
   * The input rows these params refuse, each with its columns plus {@code reject_rule} and
   * {@code reject_reason}: the same checks as {@link #transform}, and no model run.
   */
  public Dataset<Row> rejectedRows(Dataset<?> dataset) {
    EncoderWeights w = weights();
    InputColumns columns = new InputColumns(dataset.schema(), $(idCol), $(inputCol), $(maskCol));
    return RejectedRows.of(dataset.toDF(), sequenceReader(columns, w, modelSettings()),
        w.width());
  }

  /** The reader that checks and loads rows: the longest sequence is the tighter of maxLength
   *  and the learned position table. */
  private SequenceReader sequenceReader(InputColumns columns, EncoderWeights w,
      ModelSettings settings) {
    int limit = intValue(maxLength);
    String source = "maxLength";
    if (settings.positional() == PositionalEncoding.LEARNED
        && (limit == 0 || w.maxPositions() < limit)) {
      limit = w.maxPositions();
      source = "the learned position table";
    }
    return new SequenceReader(columns, w.width(), limit, source);
  }

  // IntParam and BooleanParam are Param<Object> to Java: Scala's Int and Boolean, boxed.
  private int intValue(IntParam p) {
    return (Integer) $(p);
  }

  private boolean flag(BooleanParam p) {
    return (Boolean) $(p);
  }

  private static List<Integer> boxed(int[] values) {
    return Arrays.stream(values).boxed().toList();
  }

  @Override
  public EncoderTransformer copy(ParamMap extra) {
    return (EncoderTransformer) defaultCopy(extra);
  }
}
