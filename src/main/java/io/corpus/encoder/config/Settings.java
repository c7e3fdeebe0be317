package io.corpus.encoder.config;

import io.corpus.encoder.common.ConfigName;
import io.corpus.encoder.kernel.Activation;
import io.corpus.encoder.kernel.Precision;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.PositionalEncoding;
import io.corpus.encoder.model.Quantization;
import io.corpus.encoder.model.Window;
import io.corpus.encoder.text.LateChunking;
import io.corpus.encoder.weights.Reranker;
import io.corpus.encoder.weights.TensorNaming;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Every setting of the job, each declared once ({@link Setting}): key, ML param, type, default,
 * doc, rule. {@code reference.conf} documents the same keys at length (a test keeps the two
 * equal); {@link SettingsParser} reads them; {@code EncoderParams} makes the Transformer's params
 * from the ones that name a param.
 */
public final class Settings {
  private Settings() {}

  // input
  public static final Setting<String> INPUT_PATH = Setting.text("input.path", "", "",
      "Parquet file or folder of sequences; required");
  public static final Setting<String> ID_COLUMN = Setting.text("input.id-column", "idCol", "id",
      "row id column (any type), copied to every output and named in errors").shapingRows();
  public static final Setting<String> EMBEDDINGS_COLUMN = Setting.text("input.embeddings-column",
      "inputCol", "embeddings", "array<array<float|double>> token vectors").shapingRows()
      .resolvedByJob();
  public static final Setting<String> IDS_COLUMN = Setting.text("input.ids-column", "idsCol", "",
      "array<int|bigint> token ids; '' = not this input").shapingRows().resolvedByJob();
  public static final Setting<String> TYPE_IDS_COLUMN = Setting.text("input.type-ids-column",
      "typeIdsCol", "", "array<int|bigint> token type ids; '' = all 0").shapingRows()
      .resolvedByJob();
  public static final Setting<String> TEXT_COLUMN = Setting.text("input.text-column", "textCol",
      "", "string text, tokenized with the model folder's tokenizer.json; '' = not this input").shapingRows()
      .resolvedByJob();
  public static final Setting<List<String>> TEXT_PAIR_COLUMNS = Setting.columnPair(
      "input.text-pair-columns", "textPairCols",
      "two string columns encoded as a pair (text, text_pair); [] = single texts").shapingRows()
      .resolvedByJob();
  public static final Setting<String> MASK_COLUMN = Setting.text("input.mask-column", "maskCol",
      "", "array<int|boolean> mask, 1 = real token; '' = none").shapingRows();
  public static final Setting<String> TOKENS_COLUMN = Setting.text("input.tokens-column", "", "",
      "array<string> token texts the report labels its axes with; '' = none");
  public static final Setting<Integer> MAX_LENGTH = Setting.atLeast("input.max-length",
      "maxLength", 0, 0, "longest token-vector sequence accepted; 0 = any").shapingRows()
      .resolvedByJob();
  public static final Setting<Integer> MAX_TOKENS = Setting.atLeast("input.max-tokens",
      "maxTokens", 0, 0,
      "most tokens of token ids or text; 0 = the folder's max_seq_length, else its positions").shapingRows()
      .resolvedByJob();
  public static final Setting<String> ON_TOO_LONG = Setting.choice("input.on-too-long",
      "onTooLong", "truncate", ConfigName.names(JobSettings.OnTooLong.values()),
      "longer token ids or text: truncate, reject, or chunk (text: overlapping windows, a row "
          + "each)").shapingRows().resolvedByJob();
  public static final Setting<Integer> CHUNK_OVERLAP = Setting.atLeast("input.chunk-overlap",
      "chunkOverlap", 0, 0,
      "with on-too-long = chunk or late-chunking: tokens each window repeats of the one "
          + "before").shapingRows().resolvedByJob();
  public static final Setting<String> LATE_CHUNKING = Setting.choice("input.late-chunking",
      "lateChunking", "none", ConfigName.names(LateChunking.SpanRule.values()),
      "text: encode each whole (a longer one in windows of max-tokens) and write a row per "
          + "chunk, the mean of its span's contextual token states; spans of chunk-tokens "
          + "tokens, or of whole sentences; none = off").shapingRows();
  public static final Setting<Integer> CHUNK_TOKENS = Setting.atLeast("input.chunk-tokens",
      "chunkTokens", 256, 1, "with late-chunking: most tokens of text a chunk holds")
      .shapingRows();
  public static final Setting<String> PROMPT = Setting.text("input.prompt", "prompt", "",
      "text put before every text, as sentence-transformers' prompt; \"\" given turns the "
          + "folder's default off").shapingRows();
  public static final Setting<String> PROMPT_NAME = Setting.text("input.prompt-name",
      "promptName", "", "a prompt of the folder's config_sentence_transformers.json, by name").shapingRows();
  public static final Setting<String> ROLE = Setting.choice("input.role", "role", "document",
      new String[] {"document", "query"}, "what the texts are, as sentence-transformers' "
          + "encode_document and encode_query: the folder's prompt of that name, and a PyLate "
          + "ColBERT folder's prefix, length and query expansion").shapingRows();
  public static final Setting<String> ON_ALREADY_PROMPTED = Setting.choice(
      "input.on-already-prompted", "onAlreadyPrompted",
      JobSettings.OnAlreadyPrompted.WARN.configName(),
      ConfigName.names(JobSettings.OnAlreadyPrompted.values()), "a text that already begins "
          + "with the prompt the job adds, or another of the folder's (a reranker: its "
          + "template's label): warn (counted, the prompt added anyway), skip-prompt (the text "
          + "encoded as given) or fail").shapingRows();
  public static final Setting<String> INSTRUCTION = Setting.text("input.instruction",
      "instruction", "", "with model.reranker: the instruction in the template each pair is "
          + "written into; \"\" = the reranker card's").shapingRows();
  public static final Setting<String> ON_INVALID = Setting.choice("input.on-invalid", "",
      "quarantine", ConfigName.names(JobSettings.OnInvalid.values()),
      "a row that cannot be encoded: quarantine (to rejects/) or fail").shapingRows();

  // model
  public static final Setting<String> MODEL_PATH = Setting.text("model.path", "modelPath", "",
      "Hugging Face model folder (families: src/site/markdown/models.md); '' = weights file")
      .resolvedByJob();
  public static final Setting<String> MODEL_WEIGHTS = Setting.text("model.weights",
      "weightsPath", "", "safetensors file of the encoder layers").resolvedByJob();
  public static final Setting<String> NAMING = Setting.choice("model.naming", "naming",
      TensorNaming.PYTORCH.configName(), ConfigName.names(TensorNaming.values()),
      "tensor naming: pytorch or bert").shapingRows();
  public static final Setting<Integer> HEADS = Setting.atLeast("model.heads", "heads", 0, 0,
      "attention heads H, dividing the width; 0 = not set (a model folder says)").shapingRows();
  public static final Setting<String> ACTIVATION = Setting.choice("model.activation",
      "activation", Activation.RELU.configName(), ConfigName.names(Activation.values()),
      "relu, gelu, gelu-tanh or silu").shapingRows();
  public static final Setting<Boolean> NORM_FIRST = Setting.flag("model.norm-first", "normFirst",
      false, "pre-LN (true) or post-LN (false)").shapingRows();
  public static final Setting<Boolean> FINAL_NORM = Setting.flag("model.final-norm", "finalNorm",
      false, "final LayerNorm after the last layer").shapingRows();
  public static final Setting<Double> LAYER_NORM_EPS = Setting.positive("model.layer-norm-eps",
      "layerNormEps", 1e-5, "LayerNorm eps").shapingRows();
  public static final Setting<Boolean> CAUSAL = Setting.flag("model.causal", "causal", false,
      "queries attend only to keys at or before them").shapingRows();
  public static final Setting<Integer> WINDOW = Setting.atLeast("model.window", "window", 0, 0,
      "|query - key| <= window; 0 = none").shapingRows();
  public static final Setting<String> POSITIONAL = Setting.choice("model.positional",
      "positional", PositionalEncoding.NONE.configName(),
      ConfigName.names(PositionalEncoding.values()), "none, sinusoidal or learned").shapingRows();

  // output
  public static final Setting<String> OUTPUT_PATH = Setting.text("output.path", "", "",
      "output folder; required");
  public static final Setting<String> OUTPUT_MODE = Setting.choice("output.mode", "",
      JobSettings.OutputMode.ERROR_IF_EXISTS.configName(),
      ConfigName.names(JobSettings.OutputMode.values()),
      "what an existing output path may be: nothing, an earlier output, any folder; update: "
          + "an earlier output whose unchanged rows are reused");
  public static final Setting<String> POOLING = Setting.choice("output.pooling", "pooling",
      "auto", withAuto(ConfigName.names(Pooling.values())),
      "mean, first, max, last, none, splade, or auto (the folder's 1_Pooling or "
          + "SpladePooling, else its family's)").shapingRows();
  public static final Setting<String> NORMALIZE = Setting.choice("output.normalize",
      "normalize", "auto", new String[] {"auto", "true", "false"},
      "L2-normalize the pooled vector: true, false or auto (the folder's Normalize module)").shapingRows();
  public static final Setting<Integer> DIMENSIONS = Setting.atLeast("output.dimensions",
      "dimensions", 0, 0, "Matryoshka: the pooled vector's first N values, then normalized when "
          + "normalizing; 0 = all E").shapingRows();
  public static final Setting<Boolean> TOKEN_EMBEDDINGS = Setting.flag(
      "output.token-embeddings", "", true, "write the (T, E) token vectors").shapingRows();
  public static final Setting<Integer> SPARSE_TOP_K = Setting.atLeast("output.sparse-top-k",
      "sparseTopK", 0, 0, "SPLADE or lexical weights: keep the k largest values of each "
          + "sparse vector; 0 = all").shapingRows();
  public static final Setting<String> SPARSE = Setting.choice("output.sparse", "sparse", "auto",
      new String[] {"auto", "none", "lexical"}, "bge-m3's lexical weights as sparse_indices and "
          + "sparse_values: lexical, none, or auto (lexical when the folder has "
          + "sparse_linear.pt)").shapingRows();
  public static final Setting<String> MULTI_VECTOR = Setting.choice("output.multi-vector",
      "multiVector", "auto", new String[] {"auto", "none", "colbert"}, "ColBERT vectors of "
          + "the tokens, as multi_vectors: colbert (bge-m3's colbert_linear.pt, a PyLate "
          + "folder's Dense modules), none, or auto (colbert for a PyLate folder)").shapingRows();
  public static final Setting<String> QUANTIZE = Setting.choice("output.quantize", "quantize",
      Quantization.NONE.configName(), ConfigName.names(Quantization.values()),
      "pooled as sentence-transformers' quantize_embeddings: none, int8 or uint8 (per-dimension "
          + "ranges), binary or ubinary (signs, 8 dimensions a value)").shapingRows();
  public static final Setting<String> QUANTIZE_RANGES = Setting.text("output.quantize-ranges",
      "quantizeRanges", "", "int8, uint8: an earlier run's run-summary.json (its "
          + "quantize_ranges) or a JSON [[min...], [max...]]; '' = calibrated on this corpus")
      .shapingRows().resolvedByJob();
  public static final Setting<String> ENTITIES = Setting.choice("output.entities", "entities",
      "auto", new String[] {"auto", "none", "simple", "first", "average", "max"},
      "a token classifier's entities, grouped as the token-classification pipeline's "
          + "aggregation_strategy; none: token labels only; auto: simple").shapingRows();
  public static final Setting<Boolean> ATTENTION_ENABLED = Setting.flag(
      "output.attention.enabled", "", false, "write attention maps to attention/");
  public static final Setting<List<Integer>> ATTENTION_LAYERS = Setting.indices(
      "output.attention.layers", "attentionLayers", "layers whose maps are kept, 0-based").shapingRows();
  public static final Setting<List<Integer>> ATTENTION_HEADS = Setting.indices(
      "output.attention.heads", "attentionHeads", "heads whose maps are kept, 0-based").shapingRows();
  public static final Setting<Double> ATTENTION_SAMPLE = Setting.fraction(
      "output.attention.sample", "attentionSample", 1.0,
      "fraction of sequences whose maps and rollout are kept, by a stable hash of the id");
  public static final Setting<List<String>> ATTENTION_IDS = Setting.strings(
      "output.attention.ids", "attentionIds",
      "ids whose maps and rollout are kept; empty = by the sample");
  public static final Setting<String> ATTENTION_FORMAT = Setting.choice(
      "output.attention.format", "attentionFormat",
      AttentionOutputs.MapFormat.FULL.configName(),
      ConfigName.names(AttentionOutputs.MapFormat.values()), "full or top-k");
  public static final Setting<Integer> ATTENTION_TOP_K = Setting.atLeast("output.attention.top-k",
      "attentionTopK", 8, 1, "k of the top-k format");
  public static final Setting<Boolean> ATTENTION_AVERAGE_HEADS = Setting.flag(
      "output.attention.average-heads", "attentionAverageHeads", false,
      "one map per layer, the mean of the kept heads, with head = -1");
  public static final Setting<Boolean> ATTENTION_STATS = Setting.flag("output.attention.stats",
      "", false, "per-head statistics of every sequence to head-stats/").shapingRows();
  public static final Setting<Boolean> ATTENTION_ROLLOUT = Setting.flag(
      "output.attention.rollout", "", false, "attention rollout of the kept sequences");
  public static final Setting<String> ATTENTION_MEASURE = Setting.choice(
      "output.attention.measure", "attentionMeasure",
      AttentionOutputs.Measure.WEIGHTS.configName(),
      ConfigName.names(AttentionOutputs.Measure.values()),
      "what a kept map holds: weights (to attention/), or norms, each weight times the norm of "
          + "what its key adds to the output (to attention-norms/)");
  public static final Setting<List<String>> ATTENTION_STATS_BY = Setting.strings(
      "output.attention.stats-by", "",
      "input columns head-stats/ is grouped by (one row per group, layer and head); "
          + "[] = the whole corpus");
  public static final Setting<Boolean> ATTENTION_IMPORTANCE = Setting.flag(
      "output.attention.importance", "", false,
      "each head's effect on the pooled vector when it is removed, to head-importance/")
      .shapingRows();
  public static final Setting<Double> ATTENTION_IMPORTANCE_SAMPLE = Setting.fraction(
      "output.attention.importance-sample", "attentionImportanceSample", 1.0,
      "fraction of rows whose head importance is measured, by the hash attention.sample uses")
      .shapingRows();
  public static final Setting<Boolean> REPORT_ENABLED = Setting.flag("output.report.enabled", "",
      false, "write report/index.html");
  public static final Setting<Integer> REPORT_SEQUENCES = Setting.atLeast(
      "output.report.sequences", "", 2, 0, "how many sequences get heatmaps");
  public static final Setting<Integer> REPORT_MAX_TOKENS = Setting.atLeast(
      "output.report.max-tokens", "", 64, 1, "heatmaps show at most this many tokens");
  public static final Setting<String> REPORT_COLOR_COLUMN = Setting.text(
      "output.report.color-column", "", "", "column the corpus map colours points by; '' = none");
  public static final Setting<Integer> REPORT_MAP_POINTS = Setting.atLeast(
      "output.report.map-points", "", 20_000, 0,
      "rows on the corpus map, a sample by id hash when there are more; 0 = no map");
  public static final Setting<Integer> REPORT_NEIGHBOURS = Setting.atLeast(
      "output.report.neighbours", "", 10, 1, "nearest rows listed for each row of the map");
  public static final Setting<Double> REPORT_DUPLICATES_ABOVE = Setting.fraction(
      "output.report.duplicates-above", "", 0.95,
      "pairs of map rows at least this cosine apart are listed as near duplicates");

  // execution
  public static final Setting<Integer> BATCH_TOKENS = Setting.atLeast("execution.batch-tokens",
      "batchTokens", 4096, 1, "tokens per forward batch");
  public static final Setting<Integer> READER_BATCH_ROWS = Setting.atLeast(
      "execution.reader-batch-rows", "", 64, 1,
      "most rows per Parquet reader batch (fewer for wide rows of token vectors)");
  public static final Setting<Integer> MIN_PARTITIONS = Setting.atLeast(
      "execution.min-partitions", "", 0, 0, "split the input at least this much; 0 = task slots");
  public static final Setting<Boolean> PROGRESS = Setting.flag("execution.progress", "", true,
      "print progress while the job runs");
  public static final Setting<Integer> CHECKPOINT_SECONDS = Setting.atLeast(
      "execution.checkpoint-seconds", "", 60, 0,
      "work per task slot between kept pieces of the output; 0 = none");
  public static final Setting<Boolean> RESUME = Setting.flag("execution.resume", "", true,
      "reuse the pieces a killed run of this job kept");

  public static final Setting<String> RERANKER = Setting.choice("model.reranker", "reranker",
      Reranker.NONE.configName(), ConfigName.names(Reranker.values()),
      "a causal language model read as a reranker of text pairs, as its card runs it: none, "
          + "qwen3 (Qwen3-Reranker: its template, the score sigmoid(yes - no) at the last token) "
          + "or mxbai-v2 (mxbai-rerank-v2: its template, the logit 1 - 0)")
      .shapingRows();
  public static final Setting<String> TASK = Setting.text("model.task", "task", "",
      "the task whose LoRA adapter (the folder's adapters/<task>/, PEFT's form; or "
      + "jina-embeddings-v3's, stacked inside its checkpoint) is merged into the weights at "
      + "load; required by a folder that carries one per task, refused (listing them) when not "
      + "one of its tasks").shapingRows();
  public static final Setting<String> PRECISION = Setting.choice("model.precision", "precision",
      "float32", ConfigName.names(Precision.values()),
      "the weight products' numbers: float32, bfloat16 (processors with bfloat16 instructions) "
          + "or int8 (dynamic quantization)").shapingRows();

  /** The architecture settings a model folder's config.json answers, which must agree with it. */
  public static final List<Setting<?>> ARCHITECTURE = List.of(HEADS, ACTIVATION, LAYER_NORM_EPS,
      NORM_FIRST, FINAL_NORM, POSITIONAL, NAMING, CAUSAL, WINDOW);

  /**
   * How the encoder of a weights file computes, from the architecture settings' values: the one
   * builder of the job's configuration ({@code s -> s.read(config)}) and the Transformer's params.
   * The values are already checked; the heads must be at least 1.
   */
  public static ModelSettings weightsFileModel(Function<Setting<?>, Object> value) {
    return new ModelSettings((Integer) value.apply(HEADS),
        Architecture.encoder(Activation.fromConfigName((String) value.apply(ACTIVATION)),
                (Double) value.apply(LAYER_NORM_EPS))
            .normFirst((Boolean) value.apply(NORM_FIRST))
            .finalNorm((Boolean) value.apply(FINAL_NORM))
            .causal((Boolean) value.apply(CAUSAL)).build(),
        Window.ofSetting((Integer) value.apply(WINDOW)),
        PositionalEncoding.fromConfigName((String) value.apply(POSITIONAL)));
  }

  /**
   * The architecture settings' values as {@code model} computes: what a model folder's
   * config.json answers for them (the inverse of {@link #weightsFileModel}).
   */
  static Map<String, Object> architectureOf(ModelSettings model) {
    Architecture a = model.architecture();
    Map<String, Object> values = new LinkedHashMap<>();
    values.put(HEADS.key(), model.heads());
    values.put(ACTIVATION.key(), a.activation().configName());
    values.put(NORM_FIRST.key(), a.norms().placement().first());
    values.put(FINAL_NORM.key(), a.norms().finalNorm());
    values.put(LAYER_NORM_EPS.key(), a.norms().eps());
    values.put(CAUSAL.key(), a.causal());
    values.put(WINDOW.key(), model.window().setting());
    values.put(POSITIONAL.key(), model.positional().configName());
    return values;
  }

  /**
   * The values, by key, of the settings of {@code catalogue} that shape rows, in its order, as
   * {@code used} gives them: what the run summary's {@code settings} and the reuse key hold.
   */
  public static Map<String, Object> rowShaping(List<Setting<?>> catalogue,
      Function<String, Object> used) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (Setting<?> setting : catalogue) {
      if (setting.shapesRows()) {
        values.put(setting.key(), used.apply(setting.key()));
      }
    }
    return values;
  }

  /** All of them, in reference.conf's order. */
  public static final List<Setting<?>> ALL = List.of(INPUT_PATH, ID_COLUMN, EMBEDDINGS_COLUMN,
      IDS_COLUMN, TYPE_IDS_COLUMN, TEXT_COLUMN, TEXT_PAIR_COLUMNS, MASK_COLUMN, TOKENS_COLUMN,
      MAX_LENGTH, MAX_TOKENS, ON_TOO_LONG, CHUNK_OVERLAP, LATE_CHUNKING, CHUNK_TOKENS, PROMPT, PROMPT_NAME, ROLE,
      ON_ALREADY_PROMPTED, INSTRUCTION,
      ON_INVALID, MODEL_PATH, MODEL_WEIGHTS,
      NAMING, HEADS, ACTIVATION, NORM_FIRST, FINAL_NORM, LAYER_NORM_EPS, CAUSAL, WINDOW,
      POSITIONAL, RERANKER, TASK, PRECISION, OUTPUT_PATH, OUTPUT_MODE, POOLING, NORMALIZE, SPARSE_TOP_K,
      SPARSE, MULTI_VECTOR, DIMENSIONS, QUANTIZE, QUANTIZE_RANGES, TOKEN_EMBEDDINGS, ENTITIES,
      ATTENTION_ENABLED, ATTENTION_LAYERS, ATTENTION_HEADS, ATTENTION_SAMPLE, ATTENTION_IDS,
      ATTENTION_FORMAT, ATTENTION_TOP_K, ATTENTION_AVERAGE_HEADS, ATTENTION_STATS,
      ATTENTION_ROLLOUT, ATTENTION_MEASURE, ATTENTION_STATS_BY, ATTENTION_IMPORTANCE,
      ATTENTION_IMPORTANCE_SAMPLE, REPORT_ENABLED, REPORT_SEQUENCES, REPORT_MAX_TOKENS, REPORT_COLOR_COLUMN,
      REPORT_MAP_POINTS, REPORT_NEIGHBOURS, REPORT_DUPLICATES_ABOVE, BATCH_TOKENS,
      READER_BATCH_ROWS, MIN_PARTITIONS, PROGRESS, CHECKPOINT_SECONDS, RESUME);

  /** The settings a Spark ML param mirrors. */
  public static Stream<Setting<?>> withParams() {
    return ALL.stream().filter(s -> !s.param().isEmpty());
  }

  private static String[] withAuto(String[] names) {
    String[] values = java.util.Arrays.copyOf(names, names.length + 1);
    values[names.length] = "auto";
    return values;
  }
}
