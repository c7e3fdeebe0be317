package io.corpus.encoder.pipeline;

import io.corpus.encoder.common.InternalRows;
import io.corpus.encoder.common.ConfigName;
import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.config.InputKind;
import io.corpus.encoder.config.Setting;
import io.corpus.encoder.config.Settings;
import io.corpus.encoder.config.SettingsParser;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.text.Entities;
import io.corpus.encoder.text.TextTokenizer;
import io.corpus.encoder.weights.ModelFolder;
import io.corpus.encoder.weights.TensorNaming;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
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
 * {@code attentionCol}, {@code statsCol} and {@code rolloutCol}, each only when set: see
 * {@link AttentionColumns}.
 *
 * <p>Saved and loaded with Spark ML persistence ({@code save}, {@link #load}, inside a
 * {@code PipelineModel}): the params are saved, not the weights, which are read again from
 * {@code modelPath} or {@code weightsPath} when the loaded transformer first runs.
 */
public final class EncoderTransformer extends EncoderParams implements DefaultParamsWritable {
  private transient LoadedModel loaded;
  private transient String loadedKey;
  private transient ModelFolder folder;
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

  public EncoderTransformer setModelPath(String v) { set(modelPath, v); return this; }
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
  public EncoderTransformer setPrecision(String v) { set(precision, v); return this; }
  public EncoderTransformer setIdCol(String v) { set(idCol, v); return this; }
  public EncoderTransformer setInputCol(String v) { set(inputCol, v); return this; }
  public EncoderTransformer setIdsCol(String v) { set(idsCol, v); return this; }
  public EncoderTransformer setTypeIdsCol(String v) { set(typeIdsCol, v); return this; }
  public EncoderTransformer setTextCol(String v) { set(textCol, v); return this; }
  public EncoderTransformer setTextPairCols(String[] v) { set(textPairCols, v); return this; }
  public EncoderTransformer setMaskCol(String v) { set(maskCol, v); return this; }
  public EncoderTransformer setMaxTokens(int v) { set(maxTokens, v); return this; }
  public EncoderTransformer setOnTooLong(String v) { set(onTooLong, v); return this; }
  public EncoderTransformer setChunkOverlap(int v) { set(chunkOverlap, v); return this; }
  public EncoderTransformer setPrompt(String v) { set(prompt, v); return this; }
  public EncoderTransformer setPromptName(String v) { set(promptName, v); return this; }
  public EncoderTransformer setOutputCol(String v) { set(outputCol, v); return this; }
  public EncoderTransformer setPooledCol(String v) { set(pooledCol, v); return this; }
  public EncoderTransformer setPooling(String v) { set(pooling, v); return this; }
  public EncoderTransformer setNormalize(String v) { set(normalize, v); return this; }
  public EncoderTransformer setDimensions(int v) { set(dimensions, v); return this; }
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
  public EncoderTransformer setLogitsCol(String v) { set(logitsCol, v); return this; }
  public EncoderTransformer setScoresCol(String v) { set(scoresCol, v); return this; }
  public EncoderTransformer setLabelCol(String v) { set(labelCol, v); return this; }
  public EncoderTransformer setEntities(String v) { set(entities, v); return this; }
  public EncoderTransformer setSparseTopK(int v) { set(sparseTopK, v); return this; }
  public EncoderTransformer setTokenLabelsCol(String v) { set(tokenLabelsCol, v); return this; }
  public EncoderTransformer setEntitiesCol(String v) { set(entitiesCol, v); return this; }
  public EncoderTransformer setBatchTokens(int v) { set(batchTokens, v); return this; }
  public EncoderTransformer setMaxLength(int v) { set(maxLength, v); return this; }
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
    loadedKey = modelKey();
    folder = model.folder();
    return this;
  }

  public static MLReader<EncoderTransformer> read() {
    return new DefaultParamsReader<>();
  }

  public static EncoderTransformer load(String path) {
    return read().load(path);
  }

  private boolean fromFolder() {
    return !$(modelPath).isEmpty();
  }

  /** The model folder named by {@code modelPath}, read once (its JSON files only). */
  private ModelFolder folder() {
    if (folder == null || !folder.folder().equals(Path.of($(modelPath)))) {
      folder = ModelFolder.read(Path.of($(modelPath)));
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
      Precision p = ConfigName.parse(Precision.values(), $(precision), "precision");
      if (fromFolder()) {
        loaded = LoadedModel.fromFolder(folder(), modelSettings(),
            resolvedPooling() == Pooling.SPLADE, p);
      } else {
        loaded = LoadedModel.fromFile(Path.of($(weightsPath)),
            TensorNaming.fromConfigName($(naming)), modelSettings()).in(p);
      }
      loadedKey = modelKey();
    }
    return loaded;
  }

  private String modelKey() {
    return $(modelPath) + "|" + $(weightsPath) + "|" + $(naming) + "|" + modelSettings() + "|"
        + (resolvedPooling() == Pooling.SPLADE) + "|" + $(precision);
  }

  /** What kind of input the params name: exactly one of inputCol, idsCol and textCol. */
  InputKind inputKind() {
    boolean ids = !$(idsCol).isEmpty();
    boolean pairs = $(textPairCols).length > 0;
    if (pairs && !$(textCol).isEmpty()) {
      throw new IllegalArgumentException("Set textCol (single texts) or textPairCols (pairs), "
          + "not both");
    }
    boolean text = !$(textCol).isEmpty() || pairs;
    if ((ids ? 1 : 0) + (text ? 1 : 0) + (isSet(inputCol) ? 1 : 0) > 1) {
      throw new IllegalArgumentException("Set exactly one of inputCol (token vectors), idsCol "
          + "(token ids) and textCol (text)");
    }
    return text ? InputKind.TEXT : ids ? InputKind.IDS : InputKind.EMBEDDINGS;
  }

  private String sequenceCol(InputKind kind) {
    return switch (kind) {
      case TEXT -> $(textPairCols).length > 0 ? $(textPairCols)[0] : $(textCol);
      case IDS -> $(idsCol);
      case EMBEDDINGS -> $(inputCol);
    };
  }

  /** The input columns, checked against the schema and against what the model can read. */
  InputColumns inputColumns(StructType schema) {
    InputKind kind = inputKind();
    if (kind != InputKind.EMBEDDINGS) {
      String param = kind == InputKind.TEXT ? "textCol" : "idsCol";
      if (!fromFolder()) {
        throw new IllegalArgumentException(param + " needs modelPath, a Hugging Face model "
            + "folder: its embedding layer turns token ids into the encoder's input");
      }
      if (kind == InputKind.TEXT && folder().tokenizer().isEmpty()) {
        throw new IllegalArgumentException("textCol needs the model folder's tokenizer.json, "
            + "which is missing from " + folder().folder());
      }
      if (kind == InputKind.TEXT && !$(maskCol).isEmpty()) {
        throw new IllegalArgumentException("maskCol does not apply to textCol: text has no "
            + "padding");
      }
    }
    if (chunks() && (kind != InputKind.TEXT || $(textPairCols).length > 0)) {
      throw new IllegalArgumentException("onTooLong = chunk cuts single texts (textCol) into "
          + "windows; it does not apply to " + (kind == InputKind.TEXT ? "text pairs"
              : "token ids or token vectors"));
    }
    if (!$(typeIdsCol).isEmpty() && kind != InputKind.IDS) {
      throw new IllegalArgumentException("typeIdsCol goes with idsCol");
    }
    return new InputColumns(schema, $(idCol), kind, sequenceCol(kind), $(typeIdsCol),
        $(maskCol), kind == InputKind.TEXT && $(textPairCols).length > 0 ? $(textPairCols)[1]
            : "");
  }

  /**
   * Checks, before any data is touched, what {@link #transform} will need: exactly one of
   * modelPath and weightsPath, and the number of heads with a weights file.
   */
  @Override
  public StructType transformSchema(StructType schema) {
    checkModelParams();
    StructType out = layout(schema, inputColumns(schema)).schema();
    resolvedPrompt();
    return out;
  }

  /**
   * The prompt put before every text: the prompt param when set ("" turns the folder's default
   * off), else promptName, else the folder's default_prompt_name; single texts only.
   */
  public ModelFolder.Prompt resolvedPrompt() {
    InputKind kind = inputKind();
    ModelFolder.PromptUse use = kind != InputKind.TEXT ? ModelFolder.PromptUse.NO_TEXT
        : $(textPairCols).length > 0 ? ModelFolder.PromptUse.TEXT_PAIRS
        : chunks() ? ModelFolder.PromptUse.TEXT_CHUNKS : ModelFolder.PromptUse.SINGLE_TEXTS;
    return ModelFolder.prompt($(prompt), isSet(prompt), $(promptName),
        fromFolder() ? folder() : null, use, new String[] {"prompt", "promptName"});
  }

  private void checkModelParams() {
    boolean folder = fromFolder();
    boolean file = !$(weightsPath).isEmpty();
    if (folder && file) {
      throw new IllegalArgumentException("Set modelPath or weightsPath, not both");
    }
    if (!folder && !file) {
      throw new IllegalArgumentException("Param modelPath (a model folder) or weightsPath (a "
          + "safetensors file) must be set");
    }
    if (file && intValue(heads) < 1) {
      throw new IllegalArgumentException("Param heads must be set (the number of attention "
          + "heads), or modelPath to a model folder");
    }
  }

  /** The output columns these params give for an input of {@code schema}, checked. */
  private OutputLayout layout(StructType schema, InputColumns columns) {
    Optional<ModelFolder.Classifier> classifier = fromFolder() ? folder().classifier()
        : Optional.empty();
    Optional<ModelFolder.Classifier> head = classifier.filter(c -> !c.perToken());
    boolean perToken = classifier.filter(ModelFolder.Classifier::perToken).isPresent();
    Entities.Aggregation aggregation = entityAggregation(columns.kind(), perToken);
    Pooling pooling = resolvedPooling();
    boolean splade = pooling == Pooling.SPLADE;
    if (splade && (resolvedNormalize() || intValue(dimensions) > 0)) {
      throw new IllegalArgumentException("pooling = splade writes a sparse vector, which is not "
          + "L2-normalized or cut: set normalize = false and dimensions = 0");
    }
    OutputLayout layout = OutputLayout.of(schema, columns, new OutputLayout.Names($(outputCol),
        pooling.dense() ? $(pooledCol) : "", splade ? $(sparseIndicesCol) : "",
        splade ? $(sparseValuesCol) : "", $(attentionCol), $(statsCol),
        $(rolloutCol), head.isPresent() ? $(logitsCol) : "", head.isPresent() ? $(scoresCol) : "",
        head.isPresent() && head.get().labels().size() > 1 ? $(labelCol) : "",
        perToken ? $(tokenLabelsCol) : "", aggregation != null ? $(entitiesCol) : ""),
        attentionOutputs(), chunks());
    if (layout.chunkDocuments() && layout.withEmbeddings()) {
      throw new IllegalArgumentException("With entities and onTooLong = chunk a text's windows "
          + "become one row, whose token vectors would be the whole document's (T x E floats "
          + "held for one row, however long the text): set output.token-embeddings = false "
          + "(outputCol = \"\")");
    }
    if (layout.chunkDocuments() && (layout.withPooled() || layout.withSparse()
        || attentionOutputs().any())) {
      throw new IllegalArgumentException("With entities and onTooLong = chunk a text's windows "
          + "become one row, so a vector or map per window has no row: set pooling = none"
          + (attentionOutputs().any() ? " and no attention outputs" : "")
          + ", or entities = none for a row per window");
    }
    return layout;
  }

  /**
   * How entities are grouped: the entities param, auto being simple for a token classifier's
   * text; null when none are written. Entities need a token classifier and text, whose offsets
   * they give.
   */
  Entities.Aggregation entityAggregation(InputKind kind, boolean tokenClassifier) {
    String value = $(entities);
    boolean asked = !value.equals("auto") && !value.equals("none");
    if (asked && !tokenClassifier) {
      throw new IllegalArgumentException("entities = " + value + " needs a token classifier "
          + "(a model folder whose config.json names …ForTokenClassification)"
          + (fromFolder() ? "; " + folder().folder() + " has none" : ""));
    }
    if (asked && kind != InputKind.TEXT) {
      throw new IllegalArgumentException("entities = " + value + " needs text input "
          + "(textCol): entities are spans of the text");
    }
    if (!tokenClassifier || kind != InputKind.TEXT || value.equals("none")
        || $(textPairCols).length > 0 || $(entitiesCol).isEmpty()) {
      return null;
    }
    return value.equals("auto") ? Entities.Aggregation.SIMPLE
        : ConfigName.parse(Entities.Aggregation.values(), value, "entities");
  }

  /** The pooling the params ask for: auto is the folder's 1_Pooling mode, else mean. */
  public Pooling resolvedPooling() {
    return ModelFolder.pooling($(pooling), fromFolder() ? folder() : null);
  }

  /** Refuses a Matryoshka cut longer than the pooled vector (0: no cut). */
  public static void checkDimensions(int dimensions, int width) {
    if (dimensions > width) {
      throw new IllegalArgumentException("dimensions = " + dimensions + " is more than the "
          + "model's " + width + " (the width of its pooled vector: E, or its last Dense "
          + "module's out_features)");
    }
  }

  /** Refuses a SPLADE top-k where no sparse vector is made (0: keep all, always fine). */
  public static void checkSparseTopK(int topK, Pooling pooling) {
    if (topK > 0 && pooling != Pooling.SPLADE) {
      throw new IllegalArgumentException("sparse-top-k = " + topK + " keeps the largest values "
          + "of SPLADE's sparse vectors, and this job makes none (pooling " + pooling.configName()
          + "); leave it at 0, or use a SPLADE model folder (pooling splade)");
    }
  }

  /** Whether pooled vectors are L2-normalized: auto follows the folder's Normalize module. */
  public boolean resolvedNormalize() {
    return ModelFolder.normalize($(normalize), fromFolder() ? folder() : null,
        resolvedPooling());
  }

  /** What the attention params ask for. */
  public AttentionOutputs attentionOutputs() {
    return new AttentionOutputs(!$(attentionCol).isEmpty(), boxed($(attentionLayers)),
        boxed($(attentionHeads)), doubleValue(attentionSample),
        new TreeSet<>(List.of($(attentionIds))),
        ConfigName.parse(AttentionOutputs.MapFormat.values(), $(attentionFormat), "format"),
        intValue(attentionTopK), flag(attentionAverageHeads), !$(statsCol).isEmpty(),
        !$(rolloutCol).isEmpty());
  }

  @Override
  public Dataset<Row> transform(Dataset<?> dataset) {
    checkModelParams();
    InputColumns columns = inputColumns(dataset.schema());
    OutputLayout layout = layout(dataset.schema(), columns);
    LoadedModel m = model();
    SparkSession spark = dataset.sparkSession();
    layout.attention().checkIndices(m.weights().encoder().layerCount(), m.settings().heads());
    checkDimensions(intValue(dimensions), m.weights().pooledWidth());
    checkSparseTopK(intValue(sparseTopK), resolvedPooling());
    if (layout.withSparse() && m.weights().splade() == null) {
      throw new IllegalArgumentException("pooling = splade needs a model folder (modelPath) "
          + "whose checkpoint has its masked-language-model head");
    }
    EncodeMetrics em = metrics != null ? metrics : new EncodeMetrics(spark.sparkContext());
    SequenceSource source = source(columns, m, layout.withEntities());
    // include_prompt = false: pooling starts after [CLS] and the prompt's tokens.
    int poolFrom = fromFolder() && !folder().prompts().pooled()
        && source instanceof TextSource text ? text.promptPositions() : 0;
    PartitionEncoder encode = new PartitionEncoder(handle(spark.sparkContext(), m),
        m.weights().precision(), m.settings(), source,
        new OutputRows(layout, resolvedPooling(), resolvedNormalize(), intValue(dimensions),
            poolFrom, m.settings().heads(), intValue(sparseTopK), layout.withEntities()
                ? entityAggregation(columns.kind(), true) : null,
            layout.withEntities() ? TextTokenizer.wordRules(m.tokenizerJson()) : null),
        layout.attention(), intValue(batchTokens), $(handleInvalid).equals("error"), em);
    JavaRDD<InternalRow> rows = dataset.toDF().queryExecution().toRdd().toJavaRDD();
    return InternalRows.toDataFrame(spark, rows.mapPartitions(encode), layout.schema());
  }

  /**
   * The input rows these params refuse, each with its columns plus {@code reject_rule} and
   * {@code reject_reason}: the same checks as {@link #transform}, and no encoder layer run.
   */
  public Dataset<Row> rejectedRows(Dataset<?> dataset) {
    LoadedModel m = model();
    InputColumns columns = inputColumns(dataset.schema());
    return RejectedRows.of(dataset.toDF(), source(columns, m, false),
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

  /** The source that checks rows and turns them into the encoder's input. */
  private SequenceSource source(InputColumns columns, LoadedModel m, boolean spans) {
    return SequenceSource.of(columns, m, intValue(maxLength), intValue(maxTokens),
        $(onTooLong).equals("reject"), chunks() ? intValue(chunkOverlap) : -1,
        columns.kind() == InputKind.TEXT ? resolvedPrompt().text() : "", spans);
  }

  /** Whether texts longer than the limit become several windows (rows). */
  private boolean chunks() {
    return $(onTooLong).equals("chunk");
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
    that.metrics = metrics;
    return that;
  }
}
