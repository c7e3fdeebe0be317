package io.corpus.encoder.pipeline;

import io.corpus.encoder.common.ConfigName;
import io.corpus.encoder.common.InternalRows;
import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.config.AutoChoices;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.config.OutputChoices;
import io.corpus.encoder.config.Setting;
import io.corpus.encoder.config.SettingRules;
import io.corpus.encoder.config.Settings;
import io.corpus.encoder.config.SettingsParser;
import io.corpus.encoder.io.QuantizeRanges;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.model.LexicalHead;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.PoolingSteps;
import io.corpus.encoder.model.Quantization;
import io.corpus.encoder.model.SpladeHead;
import io.corpus.encoder.text.TextTokenizer;
import io.corpus.encoder.weights.AskedHead;
import io.corpus.encoder.weights.ModelFolder;
import io.corpus.encoder.weights.TensorNaming;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * Transformer-encoder layers as a Spark ML {@link org.apache.spark.ml.Transformer}: from token
 * vectors, token ids or text to contextual embeddings, a pooled sentence vector and, on request,
 * attention maps.
 *
 * <pre>{@code
 * Dataset<Row> out = new EncoderTransformer()
 *     .setModelPath("all-MiniLM-L6-v2").setTextCol("text")
 *     .transform(texts);
 * }</pre>
 *
 * <p>{@link #transformSchema} checks the input schema on the driver, before any task runs. The
 * model is read on the driver on the first {@code transform} and broadcast once per call (handed
 * over in memory with a local master: see {@link WeightsHandle}). Output columns: every input
 * column except {@code inputCol} (token-vector input); with text input {@code input_ids}
 * (array<int>) and {@code tokens} (array<string>); {@code outputCol} (array<array<float>>, unless
 * ""); {@code pooledCol} (array<float>, unless pooling is none or splade); with pooling splade
 * {@code sparseIndicesCol} and {@code sparseValuesCol}; a sequence classifier's
 * {@code logitsCol}, {@code scoresCol} and {@code labelCol}; a token classifier's
 * {@code tokenLabelsCol} and, for text, {@code entitiesCol} (see {@link EntityColumns}); and
 * {@code attentionCol}, {@code statsCol}, {@code rolloutCol} and {@code importanceCol}, each only
 * when set: see {@link AttentionColumns}.
 *
 * <p>Saved and loaded with Spark ML persistence ({@code save}, {@link #load}, inside a
 * {@code PipelineModel}): the params are saved, not the weights, which are read again from
 * {@code modelPath} or {@code weightsPath} when the loaded transformer first runs.
 */
public final class EncoderTransformer extends EncoderParams implements DefaultParamsWritable {
  private transient LoadedModel loaded;
  private transient String loadedKey;
  private transient ModelFolder folder;
  private transient String folderKey;              // how folder was read
  private transient EncodeMetrics metrics;
  private transient WeightsHandle handle;          // of handleModel, in handleContext
  private transient LoadedModel handleModel;
  private transient SparkContext handleContext;

  public EncoderTransformer() {
    this(Identifiable$.MODULE$.randomUID("encoder"));
  }

  public EncoderTransformer(String uid) {
    super(uid);
  }

  public EncoderTransformer setModelPath(String v) { set(Settings.MODEL_PATH.param(), v); return this; }
  public EncoderTransformer setWeightsPath(String v) { set(Settings.MODEL_WEIGHTS.param(), v); return this; }
  public EncoderTransformer setNaming(String v) { set(Settings.NAMING.param(), v); return this; }
  public EncoderTransformer setHeads(int v) { set(Settings.HEADS.param(), v); return this; }
  public EncoderTransformer setActivation(String v) { set(Settings.ACTIVATION.param(), v); return this; }
  public EncoderTransformer setNormFirst(boolean v) { set(Settings.NORM_FIRST.param(), v); return this; }
  public EncoderTransformer setFinalNorm(boolean v) { set(Settings.FINAL_NORM.param(), v); return this; }
  public EncoderTransformer setLayerNormEps(double v) { set(Settings.LAYER_NORM_EPS.param(), v); return this; }
  public EncoderTransformer setCausal(boolean v) { set(Settings.CAUSAL.param(), v); return this; }
  public EncoderTransformer setWindow(int v) { set(Settings.WINDOW.param(), v); return this; }
  public EncoderTransformer setPositional(String v) { set(Settings.POSITIONAL.param(), v); return this; }
  public EncoderTransformer setPrecision(String v) { set(Settings.PRECISION.param(), v); return this; }
  public EncoderTransformer setIdCol(String v) { set(Settings.ID_COLUMN.param(), v); return this; }
  public EncoderTransformer setInputCol(String v) { set(Settings.EMBEDDINGS_COLUMN.param(), v); return this; }
  public EncoderTransformer setIdsCol(String v) { set(Settings.IDS_COLUMN.param(), v); return this; }
  public EncoderTransformer setTypeIdsCol(String v) { set(Settings.TYPE_IDS_COLUMN.param(), v); return this; }
  public EncoderTransformer setTextCol(String v) { set(Settings.TEXT_COLUMN.param(), v); return this; }
  public EncoderTransformer setTextPairCols(String[] v) { set(Settings.TEXT_PAIR_COLUMNS.param(), v); return this; }
  public EncoderTransformer setMaskCol(String v) { set(Settings.MASK_COLUMN.param(), v); return this; }
  public EncoderTransformer setMaxTokens(int v) { set(Settings.MAX_TOKENS.param(), v); return this; }
  public EncoderTransformer setOnTooLong(String v) { set(Settings.ON_TOO_LONG.param(), v); return this; }
  public EncoderTransformer setChunkOverlap(int v) { set(Settings.CHUNK_OVERLAP.param(), v); return this; }
  public EncoderTransformer setLateChunking(String v) { set(Settings.LATE_CHUNKING.param(), v); return this; }
  public EncoderTransformer setChunkTokens(int v) { set(Settings.CHUNK_TOKENS.param(), v); return this; }
  public EncoderTransformer setPrompt(String v) { set(Settings.PROMPT.param(), v); return this; }
  public EncoderTransformer setPromptName(String v) { set(Settings.PROMPT_NAME.param(), v); return this; }
  public EncoderTransformer setInstruction(String v) { set(Settings.INSTRUCTION.param(), v); return this; }
  public EncoderTransformer setRole(String v) { set(Settings.ROLE.param(), v); return this; }
  public EncoderTransformer setOnAlreadyPrompted(String v) { set(Settings.ON_ALREADY_PROMPTED.param(), v); return this; }
  public EncoderTransformer setReranker(String v) { set(Settings.RERANKER.param(), v); return this; }
  public EncoderTransformer setTask(String v) { set(Settings.TASK.param(), v); return this; }
  public EncoderTransformer setOutputCol(String v) { set(outputCol, v); return this; }
  public EncoderTransformer setPooledCol(String v) { set(pooledCol, v); return this; }
  public EncoderTransformer setPooling(String v) { set(Settings.POOLING.param(), v); return this; }
  public EncoderTransformer setNormalize(String v) { set(Settings.NORMALIZE.param(), v); return this; }
  public EncoderTransformer setDimensions(int v) { set(Settings.DIMENSIONS.param(), v); return this; }
  public EncoderTransformer setAttentionCol(String v) { set(attentionCol, v); return this; }
  public EncoderTransformer setAttentionLayers(int[] v) { set(Settings.ATTENTION_LAYERS.param(), v); return this; }
  public EncoderTransformer setAttentionHeads(int[] v) { set(Settings.ATTENTION_HEADS.param(), v); return this; }
  public EncoderTransformer setAttentionSample(double v) { set(Settings.ATTENTION_SAMPLE.param(), v); return this; }
  public EncoderTransformer setAttentionIds(String[] v) { set(Settings.ATTENTION_IDS.param(), v); return this; }
  public EncoderTransformer setAttentionFormat(String v) { set(Settings.ATTENTION_FORMAT.param(), v); return this; }
  public EncoderTransformer setAttentionTopK(int v) { set(Settings.ATTENTION_TOP_K.param(), v); return this; }
  public EncoderTransformer setAttentionAverageHeads(boolean v) {
    set(Settings.ATTENTION_AVERAGE_HEADS.param(), v);
    return this;
  }
  public EncoderTransformer setStatsCol(String v) { set(statsCol, v); return this; }
  public EncoderTransformer setRolloutCol(String v) { set(rolloutCol, v); return this; }
  public EncoderTransformer setImportanceCol(String v) { set(importanceCol, v); return this; }
  public EncoderTransformer setLogitsCol(String v) { set(logitsCol, v); return this; }
  public EncoderTransformer setScoresCol(String v) { set(scoresCol, v); return this; }
  public EncoderTransformer setLabelCol(String v) { set(labelCol, v); return this; }
  public EncoderTransformer setEntities(String v) { set(Settings.ENTITIES.param(), v); return this; }
  public EncoderTransformer setSparseTopK(int v) { set(Settings.SPARSE_TOP_K.param(), v); return this; }
  public EncoderTransformer setQuantize(String v) { set(Settings.QUANTIZE.param(), v); return this; }
  public EncoderTransformer setQuantizeRanges(String v) { set(Settings.QUANTIZE_RANGES.param(), v); return this; }
  public EncoderTransformer setSparse(String v) { set(Settings.SPARSE.param(), v); return this; }
  public EncoderTransformer setMultiVector(String v) { set(Settings.MULTI_VECTOR.param(), v); return this; }
  public EncoderTransformer setTokenLabelsCol(String v) { set(tokenLabelsCol, v); return this; }
  public EncoderTransformer setEntitiesCol(String v) { set(entitiesCol, v); return this; }
  public EncoderTransformer setBatchTokens(int v) { set(Settings.BATCH_TOKENS.param(), v); return this; }
  public EncoderTransformer setMaxLength(int v) { set(Settings.MAX_LENGTH.param(), v); return this; }
  public EncoderTransformer setHandleInvalid(String v) { set(handleInvalid, v); return this; }

  /**
   * Sets the param that mirrors {@code setting} to a value as the job's parser reads it (a list
   * of indices or strings becomes the param's array).
   */
  public EncoderTransformer setSetting(Setting<?> setting, Object value) {
    if (setting.param().isEmpty()) {
      throw new IllegalArgumentException(setting.key() + " has no param");
    }
    Object v = value;
    if (value instanceof List<?> list) {
      v = setting.type() == Setting.Type.INT_LIST
          ? list.stream().mapToInt(i -> (Integer) i).toArray()
          : list.stream().map(String.class::cast).toArray(String[]::new);
    }
    set(setting.param(), v);
    return this;
  }

  /**
   * Writes the pooled vectors as floats, unquantized whatever {@code quantize} said: for a
   * caller that quantizes them itself, as the encode job does when it calibrates int8 ranges on
   * its corpus first.
   */
  public EncoderTransformer setFloatPooled() {
    return setQuantize(Quantization.NONE.configName());
  }

  /** Counters this transformer's tasks add to; without them, fresh ones are made per call. */
  public EncoderTransformer setMetrics(EncodeMetrics metrics) {
    this.metrics = metrics;
    return this;
  }

  /**
   * Uses a model the caller already loaded (and checked) for the current params, instead of
   * reading {@code modelPath} or {@code weightsPath} again.
   */
  public EncoderTransformer setLoadedModel(LoadedModel model) {
    loaded = model;
    folder = model.folder();
    folderKey = folder == null ? null : JobSettings.folderKey(string(Settings.MODEL_PATH), this);
    loadedKey = modelKey();
    return this;
  }

  public static MLReader<EncoderTransformer> read() {
    return new DefaultParamsReader<>();
  }

  public static EncoderTransformer load(String path) {
    return read().load(path);
  }

  boolean fromFolder() {
    return !string(Settings.MODEL_PATH).isEmpty();
  }

  /** The model folder named by {@code modelPath}, read once (its JSON files only). */
  ModelFolder folder() {
    String key = JobSettings.folderKey(string(Settings.MODEL_PATH), this);
    if (folder == null || !key.equals(folderKey)) {
      folder = JobSettings.readFolder(string(Settings.MODEL_PATH), this);
      folderKey = key;
    }
    return folder;
  }

  /**
   * How the encoder computes: a model folder's config.json, with which every architecture param
   * that is set must agree; else these params.
   */
  public ModelSettings modelSettings() {
    checkModelParams();
    if (fromFolder()) {
      List<ModelFolder.Given> given = new ArrayList<>();
      for (Setting<?> setting : Settings.ARCHITECTURE) {
        Param<?> param = getParam(setting.param());
        if (isSet(param)) {
          given.add(new ModelFolder.Given("param " + setting.param(),
              SettingsParser.field(setting), $(param)));
        }
      }
      return folder().settings(given);
    }
    return Settings.weightsFileModel(setting -> $(getParam(setting.param())));
  }

  /** The model, read on the driver once and kept for later calls with the same params. */
  public LoadedModel model() {
    if (loaded == null || !Objects.equals(modelKey(), loadedKey)) {
      Precision p = ConfigName.parse(Precision.values(), string(Settings.PRECISION), "precision");
      if (fromFolder()) {
        loaded = LoadedModel.fromFolder(folder(), modelSettings(), heads(), p);
      } else {
        loaded = LoadedModel.fromFile(Path.of(string(Settings.MODEL_WEIGHTS)),
            TensorNaming.fromConfigName(string(Settings.NAMING)), modelSettings(), p);
      }
      loadedKey = modelKey();
    }
    return loaded;
  }

  private String modelKey() {
    return (fromFolder() ? JobSettings.folderKey(string(Settings.MODEL_PATH), this) + "|"
        + heads() : string(Settings.MODEL_WEIGHTS) + "|" + string(Settings.NAMING)) + "|"
        + modelSettings() + "|" + string(Settings.PRECISION);
  }

  /** The heads beyond the folder's own the params ask for: SPLADE's, bge-m3's two. */
  private Set<AskedHead> heads() {
    return outputChoices().heads();
  }

  /** How the pooled vector is written: floats, or quantized; refused without one. */
  public Quantization resolvedQuantization() {
    return outputChoices().quantization();
  }

  /**
   * The ranges an int8 or uint8 pooled vector is quantized with, read from the quantizeRanges
   * file, as wide as the pooled vector; null for other quantizations. The Transformer quantizes
   * row by row, so it needs them given (the encode job calibrates them on its corpus).
   */
  public Quantization.Ranges quantizeRanges(Configuration hadoop, int pooledWidth) {
    Quantization q = resolvedQuantization();
    if (!q.ranged()) {
      return null;
    }
    String path = string(Settings.QUANTIZE_RANGES);
    if (path.isEmpty()) {
      throw new IllegalArgumentException("quantize = " + q.configName() + " needs "
          + "quantizeRanges (output.quantize-ranges): an earlier run's run-summary.json or a "
          + "[[min, ...], [max, ...]] file; the encode job calibrates them on its corpus");
    }
    Quantization.Ranges ranges = QuantizeRanges.read(path, hadoop);
    if (ranges.width() != pooledWidth) {
      throw new IllegalArgumentException("output.quantize-ranges " + path + " has ranges of "
          + ranges.width() + " values, and the pooled vector has " + pooledWidth);
    }
    return ranges;
  }

  /** The output params resolved for the model, as a job's file is ({@link OutputChoices}). */
  public OutputChoices outputChoices() {
    return OutputChoices.of(this, fromFolder() ? folder() : null);
  }

  /**
   * Checks, before any data is touched, what {@link #transform} will need: exactly one of
   * modelPath and weightsPath, and the number of heads with a weights file.
   */
  @Override
  public StructType transformSchema(StructType schema) {
    checkModelParams();
    resolvedPrompt();
    return new OutputParams(this).layout(schema, input().columns(schema)).schema();
  }

  /**
   * The prompt put before every text: the prompt param when set ("" turns the folder's default
   * off), else the prompt named, else the folder's prompt for the role, else its
   * default_prompt_name; single texts only.
   */
  public AutoChoices.Prompt resolvedPrompt() {
    return input().prompt();
  }

  /**
   * What the texts may already begin with where a prompt (or a reranker's template) goes before
   * them, and what such a text gets; empty where nothing goes before the texts.
   */
  public Optional<HeldPrompts> heldPrompts() {
    return Optional.ofNullable(input().heldPrompts());
  }

  /** What the input params ask for. */
  private InputParams input() {
    return new InputParams(this);
  }

  private void checkModelParams() {
    if (!SettingRules.fromFolder(this) && intValue(Settings.HEADS) < 1) {
      throw new IllegalArgumentException("Param heads must be set (the number of attention "
          + "heads), or modelPath to a model folder");
    }
  }

  /** The pooling the params ask for: auto is the folder's 1_Pooling mode, else mean. */
  public Pooling resolvedPooling() {
    return outputChoices().pooling();
  }

  /**
   * Refuses outputs the model cannot give: a Matryoshka cut longer than its pooled vector
   * ({@code pooledWidth}: E, or its last Dense module's out_features), and a SPLADE top-k where
   * no sparse vector is made.
   */
  public void checkOutputs(int pooledWidth) {
    int cut = intValue(Settings.DIMENSIONS);
    if (cut > pooledWidth) {
      throw new IllegalArgumentException("dimensions = " + cut + " is more than the model's "
          + pooledWidth + " (the width of its pooled vector: E, or its last Dense module's "
          + "out_features)");
    }
    int topK = intValue(Settings.SPARSE_TOP_K);
    OutputChoices choices = outputChoices();
    Pooling pooling = choices.pooling();
    if (topK > 0 && pooling != Pooling.SPLADE && !choices.lexical()) {
      throw new IllegalArgumentException("sparse-top-k = " + topK + " keeps the largest values "
          + "of sparse vectors, and this job makes none (pooling " + pooling.configName()
          + ", no lexical weights); leave it at 0, or use a SPLADE model folder (pooling "
          + "splade) or bge-m3's lexical weights");
    }
  }

  /** Refuses a Matryoshka cut where {@code pooling} writes no pooled vector to cut. */
  void checkMatryoshkaCut(Pooling pooling) {
    int cut = intValue(Settings.DIMENSIONS);
    if (cut > 0 && !pooling.dense()) {
      throw new IllegalArgumentException("dimensions = " + cut + " cuts the pooled vector, but "
          + "pooling = " + pooling.configName() + " writes none");
    }
  }

  /**
   * How many values each pooled vector has as written: the model's pooled width, or the
   * Matryoshka cut; null when no pooled vector is written.
   */
  public Integer pooledWidth() {
    if (!resolvedPooling().dense()) {
      return null;
    }
    int cut = intValue(Settings.DIMENSIONS);
    return cut > 0 ? cut : model().weights().pooledWidth();
  }

  /** What the attention params ask for. */
  public AttentionOutputs attentionOutputs() {
    SettingRules.keptMaps(this);
    return new AttentionOutputs(!$(attentionCol).isEmpty(), boxed(indices(Settings.ATTENTION_LAYERS)),
        boxed(indices(Settings.ATTENTION_HEADS)), doubleValue(Settings.ATTENTION_SAMPLE),
        new TreeSet<>(List.of(strings(Settings.ATTENTION_IDS))),
        ConfigName.parse(AttentionOutputs.MapFormat.values(), string(Settings.ATTENTION_FORMAT), "format"),
        intValue(Settings.ATTENTION_TOP_K), flag(Settings.ATTENTION_AVERAGE_HEADS), !$(statsCol).isEmpty(),
        !$(rolloutCol).isEmpty(), ConfigName.parse(AttentionOutputs.Measure.values(),
            string(Settings.ATTENTION_MEASURE), "attentionMeasure"), List.of(),
        !$(importanceCol).isEmpty(), doubleValue(Settings.ATTENTION_IMPORTANCE_SAMPLE));
  }

  @Override
  public Dataset<Row> transform(Dataset<?> dataset) {
    checkModelParams();
    InputColumns columns = input().columns(dataset.schema());
    OutputLayout layout = new OutputParams(this).layout(dataset.schema(), columns);
    LoadedModel m = model();
    SparkSession spark = dataset.sparkSession();
    layout.attention().checkIndices(m.weights().encoder().layerCount(), m.settings().heads());
    checkOutputs(m.weights().pooledWidth());
    if (layout.has(OutputGroup.SparseVector.class)
        && m.weights().head(SpladeHead.class).isEmpty()
        && m.weights().head(LexicalHead.class).isEmpty()) {
      throw new IllegalArgumentException("pooling = splade needs a model folder (modelPath) "
          + "whose checkpoint has its masked-language-model head");
    }
    EncodeMetrics em = metrics != null ? metrics : new EncodeMetrics(spark.sparkContext());
    OutputChoices choices = outputChoices();
    SequenceSource source = input().source(columns, m, layout.withEntities());
    PartitionEncoder encode = new PartitionEncoder(handle(spark.sparkContext(), m),
        m.weights().precision(), m.settings(), source,
        new OutputRows(layout, new PoolingSteps(choices.pooling(), intValue(Settings.DIMENSIONS),
            choices.normalize()), m.settings().heads(),
            layout.withEntities() ? TextTokenizer.wordRules(m.tokenizerJson()) : null,
            layout.has(OutputGroup.PooledVector.class)
                ? quantizeRanges(spark.sparkContext().hadoopConfiguration(), pooledWidth())
                : null, source instanceof TextSource text ? text.late() : null),
        layout.attention(), intValue(Settings.BATCH_TOKENS), $(handleInvalid).equals("error"), em);
    JavaRDD<InternalRow> rows = dataset.toDF().queryExecution().toRdd().toJavaRDD();
    return InternalRows.toDataFrame(spark, rows.mapPartitions(encode), layout.schema());
  }

  /**
   * The input rows these params refuse, each with its columns plus {@code reject_rule} and
   * {@code reject_reason}: the same checks as {@link #transform}, and no encoder layer run.
   */
  public Dataset<Row> rejectedRows(Dataset<?> dataset) {
    LoadedModel m = model();
    InputColumns columns = input().columns(dataset.schema());
    return RejectedRows.of(dataset.toDF(), input().source(columns, m, false),
        handle(dataset.sparkSession().sparkContext(), m));
  }

  /**
   * The input rows these params take, as they are: what {@link #transform} would encode (and
   * {@link #rejectedRows} not refuse), and no encoder layer run.
   */
  public Dataset<Row> acceptedRows(Dataset<?> dataset) {
    LoadedModel m = model();
    InputColumns columns = input().columns(dataset.schema());
    return RejectedRows.accepted(dataset.toDF(), input().source(columns, m, false),
        handle(dataset.sparkSession().sparkContext(), m));
  }

  /**
   * How tasks reach the model: one handle (on a cluster, one broadcast) per model and Spark
   * context, shared by {@link #transform} and {@link #rejectedRows}.
   */
  private WeightsHandle handle(SparkContext sc, LoadedModel m) {
    if (handle == null || handleModel != m || handleContext != sc) {
      handle = WeightsHandle.of(JavaSparkContext.fromSparkContext(sc), m.weights());
      handleModel = m;
      handleContext = sc;
    }
    return handle;
  }

  /**
   * Frees the weights handed to the tasks (on a cluster, destroys the broadcast on every
   * executor). Call it when the datasets this transformer made have been written; a later
   * {@code transform} hands the weights over again.
   */
  public void release() {
    if (handle != null) {
      handle.destroy();
      handle = null;
      handleModel = null;
      handleContext = null;
    }
  }

  private static List<Integer> boxed(int[] values) {
    return Arrays.stream(values).boxed().toList();
  }

  /**
   * A copy with the same params (and {@code extra}) that keeps what this one loaded: the model,
   * the folder and the counters; a copy whose params ask for another model loads that one.
   */
  @Override
  public EncoderTransformer copy(ParamMap extra) {
    EncoderTransformer that = copyValues(new EncoderTransformer(uid()), extra);
    that.loaded = loaded;
    that.loadedKey = loadedKey;
    that.folder = folder;
    that.folderKey = folderKey;
    that.metrics = metrics;
    return that;
  }
}
