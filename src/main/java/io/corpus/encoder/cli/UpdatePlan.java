package io.corpus.encoder.cli;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.hash;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sha2;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;
import static org.apache.spark.sql.functions.xxhash64;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.corpus.encoder.common.JsonDifference;
import io.corpus.encoder.config.InputKind;
import io.corpus.encoder.config.AttentionOutputs;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.io.LocalPaths;
import io.corpus.encoder.io.OutputFolder;
import io.corpus.encoder.io.ParquetFooters;
import io.corpus.encoder.io.ParquetInput;
import io.corpus.encoder.io.QuantizeRanges;
import io.corpus.encoder.pipeline.LoadedModel;
import io.corpus.encoder.pipeline.ValidStrings;
import io.corpus.encoder.weights.ModelFingerprint;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * {@code output.mode = update}: the earlier output at the output path, checked before any row is
 * read (its {@code run-summary.json} holds the same {@link #reuseKey}, its ids are on one row
 * each), lends its model columns to the rows of the new input whose id and {@value #HASH_COLUMN}
 * it holds; only the other rows are encoded. Every other column comes from the new input, and
 * ids no longer in the input are left out. The earlier output stays whole until the new one is
 * committed in its place. Driver only: it plans Spark's joins.
 */
final class UpdatePlan {
  /** The column every output row carries: SHA-256 of what the row fed the encoder. */
  static final String HASH_COLUMN = "input_hash";
  /** Whether an input row may take an earlier row: its strings pass the row checks. */
  private static final String REUSABLE = "__corpus_encoder_reusable";
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Up to this many earlier rows, their ids and hashes (about 100 bytes a row) go to every task
   * (a broadcast join: the input keeps its partitions and is not shuffled); beyond, Spark joins
   * by sorting both sides.
   */
  static final long BROADCAST_KEYS_UP_TO = 1_000_000;
  /**
   * Up to this many uncompressed bytes of input, the input goes to every task to meet the
   * earlier rows it reuses, so that their vectors are read where they lie and never shuffled.
   */
  static final long BROADCAST_INPUT_UP_TO = 64L << 20;

  private final Dataset<Row> earlier;
  private final String id;
  private final boolean broadcastKeys;
  private final boolean chunked;
  private final boolean broadcastInput;

  private UpdatePlan(Dataset<Row> earlier, String id, boolean broadcastKeys, boolean chunked,
      boolean broadcastInput) {
    this.earlier = earlier;
    this.id = id;
    this.broadcastKeys = broadcastKeys;
    this.chunked = chunked;
    this.broadcastInput = broadcastInput;
  }

  /**
   * The hash of what a row feeds the encoder, whatever the columns are named: SHA-256 of its
   * text (and the pair's second text) or its token ids (type ids, mask) as JSON; of its vectors'
   * (and mask's) 64-bit xxHash and 32-bit Murmur3, the hashes Spark computes over the floats'
   * bits, and whether each is null. Printing the floats as JSON cost seconds a long row: 6.3
   * million of them for one document of 8,192 tokens of 768 values.
   */
  static Column inputHash(JobSettings.Input in) {
    List<String> columns = hashedColumns(in);
    Map<String, Column> parts = new LinkedHashMap<>();   // the JSON's fields, in order
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).isEmpty()) {
        continue;
      }
      Column column = named(columns.get(i));
      if (in.kind() == InputKind.EMBEDDINGS) {
        parts.put("c" + i + "x", xxhash64(column));
        parts.put("c" + i + "m", hash(column));
        parts.put("c" + i + "n", column.isNull());
      } else {
        parts.put("c" + i, column);
      }
    }
    return sha2(usesToJson(in) ? to_json(struct(parts.entrySet().stream()
        .map(part -> part.getValue().as(part.getKey())).toArray(Column[]::new)))
        : numbersAsJson(parts), 256);
  }

  /**
   * Whether {@link #inputHash} prints its parts with Spark's {@code to_json}: texts and ids do,
   * for its escaping and its lists; the vectors' hashes are numbers and flags, printed by
   * {@link #numbersAsJson}.
   */
  static boolean usesToJson(JobSettings.Input in) {
    return in.kind() != InputKind.EMBEDDINGS;
  }

  /**
   * The text {@code to_json(struct(...))} gives for fields that are never null and are numbers
   * or booleans, {"name":value,...}, joined by {@code concat}: the same string, so the same
   * hashes as outputs written before, without the Scala reflection {@code to_json}'s generated
   * code starts with (1.6 CPU-seconds of a two-core machine's start).
   */
  private static Column numbersAsJson(Map<String, Column> parts) {
    List<Column> pieces = new ArrayList<>();
    for (Map.Entry<String, Column> part : parts.entrySet()) {
      pieces.add(lit((pieces.isEmpty() ? "{" : ",") + "\"" + part.getKey() + "\":"));
      pieces.add(part.getValue().cast("string"));
    }
    pieces.add(lit("}"));
    return concat(pieces.toArray(new Column[0]));
  }

  /**
   * Initialises, on a thread of its own beside Spark's start, what {@link #inputHash}'s {@code
   * to_json} first needs when Spark plans it: Spark's {@code ScalaReflection}, whose Scala
   * runtime universe took a second on the planning thread, between Spark's start and its first
   * job. The job takes no result from it: a failure here is the planning's to report, as it was.
   * Nothing is started for an input whose hash does not use it ({@link #usesToJson}).
   */
  static BackgroundTask<Void> prepareInputHash(JobSettings.Input in) {
    if (!usesToJson(in)) {
      return null;
    }
    return new BackgroundTask<>("input-hash-prepare", "Spark's reflection was initialised", () -> {
      Class.forName("org.apache.spark.sql.catalyst.ScalaReflection$", true,
          UpdatePlan.class.getClassLoader());
      return null;
    });
  }

  /**
   * The columns a row's {@link #inputHash} is taken over, in order ("" where the input has
   * none): its text and pair, or ids, type ids and mask, or vectors and mask.
   */
  static List<String> hashedColumns(JobSettings.Input in) {
    return switch (in.kind()) {
      case TEXT -> List.of(in.textColumn(), in.pairColumn());
      case IDS -> List.of(in.idsColumn(), in.typeIdsColumn(), in.maskColumn());
      case EMBEDDINGS -> List.of(in.embeddingsColumn(), in.maskColumn());
    };
  }

  /**
   * The rows encoded now and those reused, as one table of {@code encoded}'s schema. A union
   * takes the nullable types Parquet reads the earlier rows with ({@code array<float>} of
   * nullable elements), so the output's files would not have a fresh run's schema; the rows are
   * handed on as they are, under the encoded schema (no copy: Spark's own rows, typed again).
   */
  Dataset<Row> withReused(Dataset<Row> encoded, Dataset<Row> hashed) {
    Dataset<Row> union = encoded.unionByName(reused(hashed, encoded.schema()));
    return ((org.apache.spark.sql.classic.SparkSession) union.sparkSession())
        .internalCreateDataFrame(union.queryExecution().toRdd(), encoded.schema(), false);
  }

  /** {@code encoded} with {@value #HASH_COLUMN} moved after the model's columns. */
  static Dataset<Row> hashLast(Dataset<Row> encoded) {
    List<Column> columns = new ArrayList<>();
    for (String name : encoded.columns()) {
      if (!name.equals(HASH_COLUMN)) {
        columns.add(named(name));
      }
    }
    columns.add(named(HASH_COLUMN));
    return encoded.select(columns.toArray(new Column[0]));
  }

  /** The column of this name as it is written, dots and all (col() would read a path). */
  private static Column named(String name) {
    return col("`" + name.replace("`", "``") + "`");
  }

  /**
   * What an update must find unchanged in the earlier output's run-summary.json, and a resumed
   * run in the plan of the pieces it reuses: the model's fingerprint (its files' SHA-256) and
   * every setting that shapes a row of {@code embeddings/} (the columns it is read from, the
   * head statistics it carries).
   */
  static Map<String, Object> reuseKey(JobSettings settings, LoadedModel model) {
    return reuseKey(settings, model, fingerprint(settings));
  }

  /** {@link #reuseKey(JobSettings, LoadedModel)} with the model's {@link #fingerprint}. */
  static Map<String, Object> reuseKey(JobSettings settings, LoadedModel model,
      String fingerprint) {
    Map<String, Object> described = new LinkedHashMap<>(Transformers.describe(settings, model));
    described.remove("path");
    described.remove("weights");
    Map<String, Object> key = reuseKey(fingerprint, described, settings.rowShaping());
    String ranges = settings.output().quantizeRanges();
    if (!ranges.isEmpty()) {   // what the file holds, not only where it is
      key.put("quantize_ranges_sha256", QuantizeRanges.digest(QuantizeRanges.read(ranges,
          LocalPaths.beforeSpark())));
    }
    return key;
  }

  /**
   * {@link #fingerprint}, hashed on a thread of its own while the job loads the model from the
   * same files: a decoder's 1.2 GB took a second of SHA-256 after the load, on the path to
   * Spark's first job, where a core is free during the load.
   */
  static BackgroundTask<String> fingerprintBesideTheLoad(JobSettings settings) {
    return new BackgroundTask<>("model-fingerprint", "the model's files were hashed",
        () -> fingerprint(settings));
  }

  /** The fingerprint of the model the settings name: its folder's files, or its weights file. */
  static String fingerprint(JobSettings settings) {
    return settings.weights().isFolder() ? ModelFingerprint.ofFolder(settings.modelFolder())
        : ModelFingerprint.ofFile(java.nio.file.Path.of(settings.weights().path()));
  }

  /** The reuse key of a model (its fingerprint, its description) and the row-shaping settings. */
  static Map<String, Object> reuseKey(String fingerprint, Map<String, Object> model,
      Map<String, Object> rowShaping) {
    Map<String, Object> key = new LinkedHashMap<>();
    key.put("model_fingerprint", fingerprint);
    key.put("model", model);
    key.put("settings", rowShaping);
    return key;
  }

  /**
   * For {@code --check}: what {@link #open} refuses of the earlier output, checked before Spark
   * starts where the output path is on the local disk (elsewhere the job checks it).
   */
  static void checkBeforeStart(JobSettings settings, LoadedModel model) {
    Configuration conf = LocalPaths.beforeSpark();
    Path target = new Path(settings.output().path());
    if (LocalPaths.isRemote(target, conf)) {
      return;
    }
    checkEarlier(settings, target, reuseKey(settings, model), conf);
  }

  /**
   * The summary of the earlier output at {@code target}, refused in one line when there is
   * none, when it records another reuse key or ids on more than one row.
   */
  private static JsonNode checkEarlier(JobSettings settings, Path target,
      Map<String, Object> reuseKey, Configuration hadoop) {
    String shown = settings.environment().redact(settings.output().path());
    Path summary = new Path(target, "run-summary.json");
    JsonNode earlierSummary;
    try {
      FileSystem fs = summary.getFileSystem(hadoop);
      if (!fs.exists(summary)) {
        throw new IllegalArgumentException("output.mode = update needs an earlier output of "
            + "this job at " + shown + ", and there is none; run with error-if-exists or "
            + "overwrite first");
      }
      try (InputStream in = fs.open(summary)) {
        earlierSummary = JSON.readTree(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + summary, e);
    }
    JsonNode earlierKey = earlierSummary.get("reuse_key");
    if (earlierKey == null || earlierKey.isNull()) {
      throw new IllegalArgumentException("output.mode = update: the earlier output at " + shown
          + " was written by a version of this job that did not record what its rows depend "
          + "on (reuse_key); run once with output.mode = overwrite");
    }
    if (!earlierKey.has("settings")) {
      throw new IllegalArgumentException("output.mode = update: the earlier output at " + shown
          + " was written by a version of this job that recorded what its rows depend on in "
          + "another form (its reuse_key has no settings); run once with output.mode = "
          + "overwrite");
    }
    String difference = JsonDifference.first(earlierKey, JsonDifference.of(reuseKey));
    if (difference != null) {
      throw new IllegalArgumentException("output.mode = update: the earlier output at " + shown
          + " was made with " + difference + ", so its rows cannot be reused; run with "
          + "output.mode = overwrite to encode every row again");
    }
    if (settings.output().quantize().ranged() && settings.output().quantizeRanges().isEmpty()
        && !earlierSummary.path("outputs").path("quantize_ranges").isArray()) {
      throw new IllegalArgumentException("output.mode = update with output.quantize = "
          + settings.output().quantize().configName() + " quantizes new rows with the earlier "
          + "output's ranges, and the earlier output at " + shown + " has none (it wrote no "
          + "vector to calibrate them on); set output.quantize-ranges, or run with "
          + "output.mode = overwrite");
    }
    long duplicates = earlierSummary.path("duplicate_ids").asLong();
    if (duplicates > 0) {
      throw new IllegalArgumentException("output.mode = update matches rows by "
          + settings.input().idColumn() + ", and the earlier output at " + shown + " has "
          + duplicates + " ids on more than one row; run with output.mode = overwrite");
    }
    return earlierSummary;
  }

  /**
   * Checks the earlier output at {@code out}'s path against {@code reuseKey} and plans the reuse
   * of its rows; refuses, in one line naming what differs, what cannot be reused.
   */
  static UpdatePlan open(SparkSession spark, JobSettings settings, OutputFolder out,
      Map<String, Object> reuseKey, long inputBytes, StructType input) {
    String shown = settings.environment().redact(settings.output().path());
    Configuration hadoop = spark.sparkContext().hadoopConfiguration();
    JsonNode earlierSummary = checkEarlier(settings, out.target(), reuseKey, hadoop);
    String table = new Path(out.target(), "embeddings").toString();
    checkOneSchema(table, hadoop, shown);
    // its schema from one footer (all alike), without the Spark job Spark's own inference runs
    Dataset<Row> earlier = ParquetInput.read(spark, table);
    checkIdType(settings.input().idColumn(), input, earlier.schema(), shown);
    checkRowCount(earlier, settings.input().idColumn(), earlierSummary, table, hadoop, shown);
    return new UpdatePlan(earlier, settings.input().idColumn(),
        earlierSummary.path("chunks_written").asLong(Long.MAX_VALUE) <= BROADCAST_KEYS_UP_TO,
        // rows per window carry `chunk`; a token classifier's entities make one row per text
        settings.input().chunkRows()
            && Arrays.asList(earlier.columns()).contains(InputKind.CHUNK_COLUMN),
        inputBytes <= BROADCAST_INPUT_UP_TO);
  }

  /**
   * Refuses an earlier table whose files do not all have one schema (a part file that lost a
   * column would give its rows nulls), naming the file and what differs.
   */
  private static void checkOneSchema(String table, Configuration hadoop, String shown) {
    Map<String, MessageType> schemas = ParquetFooters.schemas(
        ParquetFooters.dataFiles(table, hadoop), hadoop);
    MessageType first = null;
    String firstFile = null;
    for (Map.Entry<String, MessageType> file : schemas.entrySet()) {
      if (first == null) {
        first = file.getValue();
        firstFile = file.getKey();
      } else if (!first.equals(file.getValue())) {
        throw new IllegalArgumentException("output.mode = update: the earlier output at "
            + shown + " is damaged: in embeddings/, " + difference(
                new Path(file.getKey()).getName(), file.getValue(),
                new Path(firstFile).getName(), first) + "; run with output.mode = overwrite");
      }
    }
  }

  /** How file {@code a}'s schema differs from file {@code b}'s, naming the first column. */
  private static String difference(String a, MessageType schemaA, String b,
      MessageType schemaB) {
    for (org.apache.parquet.schema.Type field : schemaB.getFields()) {
      if (!schemaA.containsField(field.getName())) {
        return a + " has no column " + field.getName() + ", which " + b + " has";
      }
    }
    for (org.apache.parquet.schema.Type field : schemaA.getFields()) {
      if (!schemaB.containsField(field.getName())) {
        return b + " has no column " + field.getName() + ", which " + a + " has";
      }
    }
    for (org.apache.parquet.schema.Type field : schemaA.getFields()) {
      if (!schemaB.getType(field.getName()).equals(field)) {
        return a + " has " + field.toString().strip() + " where " + b + " has "
            + schemaB.getType(field.getName()).toString().strip();
      }
    }
    return a + " has its columns in another order than " + b;
  }

  /**
   * Refuses an earlier table whose footers count other rows than its summary says it wrote (a
   * part file copied, added or removed since): reused once per copy, its rows would not add up.
   * Names the ids it repeats, if any.
   */
  private static void checkRowCount(Dataset<Row> earlier, String id, JsonNode summary,
      String table, Configuration hadoop, String shown) {
    long counted = summary.path("chunks_written").asLong(-1);
    long rows = ParquetFooters.rowCountOfFolder(table, hadoop);
    if (counted < 0 || rows == counted) {
      return;
    }
    String repeated = "";
    if (rows > counted) {
      List<Column> key = new ArrayList<>(List.of(named(id)));
      if (Arrays.asList(earlier.columns()).contains(InputKind.CHUNK_COLUMN)) {
        key.add(named(InputKind.CHUNK_COLUMN));
      }
      List<String> examples = DuplicateIds.examples(earlier, key.toArray(new Column[0]));
      repeated = examples.isEmpty() ? "" : "; it holds repeated ids, for example "
          + String.join(", ", examples);
    }
    throw new IllegalArgumentException("output.mode = update: the earlier output at " + shown
        + " has " + rows + " rows in embeddings/ where its run summary counts " + counted
        + " (a part file copied, added or removed since)" + repeated + "; run with "
        + "output.mode = overwrite");
  }

  /** Refuses an input whose id column is of another type than the earlier output's. */
  private static void checkIdType(String id, StructType input, StructType earlier,
      String shown) {
    String was = List.of(earlier.fieldNames()).contains(id)
        ? earlier.apply(id).dataType().simpleString() : "missing";
    String is = input.apply(id).dataType().simpleString();
    if (!was.equals(is)) {
      throw new IllegalArgumentException("output.mode = update matches rows by " + id + ": it "
          + "is " + is + " in the input and " + was + " in the earlier output at " + shown
          + ", so no row would match as it should; give the input's " + id + " the type " + was
          + ", or run with output.mode = overwrite");
    }
  }

  /** The rows of {@code hashed} (the new input with its hash) that must be encoded. */
  Dataset<Row> toEncode(Dataset<Row> hashed) {
    return flagged(hashed).join(keys(), new String[] {id, HASH_COLUMN, REUSABLE}, "left_anti")
        .drop(REUSABLE);
  }

  /**
   * {@code hashed} with {@value #REUSABLE}: whether its strings pass the checks the encoder
   * makes of every row; a row that fails goes to the encoder, which sets it aside.
   */
  private static Dataset<Row> flagged(Dataset<Row> hashed) {
    return hashed.withColumn(REUSABLE, ValidStrings.of(hashed.schema()));
  }

  /**
   * The earlier rows' ids and hashes (the windows of a chunked text repeat them, which a semi or
   * an anti join does not mind), each a row an input row may take if it passes the checks.
   */
  private Dataset<Row> keys() {
    Dataset<Row> keys = earlier.select(named(id), named(HASH_COLUMN), lit(true).as(REUSABLE));
    return broadcastKeys ? broadcast(keys) : keys;
  }

  /**
   * The rows of {@code hashed} the earlier output holds, with its model columns (those of
   * {@code encoded} that the input lacks) and the new input's others, in {@code encoded}'s
   * order; refuses an earlier output without a column of {@code encoded} or of another type.
   */
  Dataset<Row> reused(Dataset<Row> hashed, StructType encoded) {
    TreeSet<String> inputColumns = new TreeSet<>(List.of(hashed.columns()));
    List<Column> earlierColumns = new ArrayList<>(List.of(named(id), named(HASH_COLUMN),
        lit(true).as(REUSABLE)));
    StructType earlierSchema = earlier.schema();
    for (StructField field : encoded.fields()) {
      if (inputColumns.contains(field.name())) {
        continue;
      }
      if (!List.of(earlierSchema.fieldNames()).contains(field.name())
          || !earlierSchema.apply(field.name()).dataType().simpleString()
              .equals(field.dataType().simpleString())) {   // Parquet reads lists as nullable
        throw new IllegalArgumentException("output.mode = update: the earlier output's "
            + "embeddings table has no column " + field.name() + " of type "
            + field.dataType().simpleString() + "; run with output.mode = overwrite");
      }
      earlierColumns.add(named(field.name()));
    }
    Dataset<Row> input = flagged(hashed);
    Dataset<Row> joined = earlier.select(earlierColumns.toArray(new Column[0])).join(
        broadcastInput ? broadcast(input) : input, new String[] {id, HASH_COLUMN, REUSABLE},
        "inner");
    return joined.select(List.of(encoded.fieldNames()).stream().map(UpdatePlan::named)
        .toArray(Column[]::new));
  }

  /**
   * Ids of the earlier output that the new input no longer has: one pass over the earlier ids,
   * each once (the earlier output has no id twice, or only as later windows of a chunked text).
   */
  long droppedIds(Dataset<Row> hashed) {
    Dataset<Row> ids = hashed.select(named(id));
    Dataset<Row> earlierIds = chunked
        ? earlier.where(named(InputKind.CHUNK_COLUMN).equalTo(0)) : earlier;
    // the input's ids go to every task when the input is small, whatever the earlier output's size
    return earlierIds.select(named(id)).join(broadcastInput ? broadcast(ids) : ids,
        new String[] {id}, "left_anti").count();
  }
}
