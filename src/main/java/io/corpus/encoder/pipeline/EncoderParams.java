package io.corpus.encoder.pipeline;

import io.corpus.encoder.config.Setting;
import io.corpus.encoder.config.SettingRules;
import io.corpus.encoder.config.SettingValues;
import io.corpus.encoder.config.Settings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
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
 * two cannot disagree: {@link #param(Setting)} finds one by its setting, Spark ML by its name
 * ({@link #params()}), and saves and loads them by these names.
 *
 * <p>The model: {@code modelPath} (a Hugging Face folder; the architecture comes from its
 * config.json) or {@code weightsPath} with {@code heads} and the other architecture params.
 * The input: exactly one of {@code inputCol} (token vectors), {@code idsCol} (token ids) and
 * {@code textCol} (text).
 */
public abstract class EncoderParams extends Transformer implements SettingValues {
  private final String uid;
  /** The params that mirror a job setting, by the setting's key, made from its declaration. */
  private final Map<String, Param<?>> mirrored = new LinkedHashMap<>();
  final Param<String> outputCol;
  final Param<String> pooledCol;
  final Param<String> attentionCol;
  final Param<String> statsCol;
  final Param<String> rolloutCol;
  final Param<String> importanceCol;
  final Param<String> logitsCol;
  final Param<String> scoresCol;
  final Param<String> labelCol;
  final Param<String> sparseIndicesCol;
  final Param<String> sparseValuesCol;
  final Param<String> multiVectorsCol;
  final Param<String> tokenLabelsCol;
  final Param<String> entitiesCol;
  final Param<String> handleInvalid;
  private boolean made;   // every param is made: the constructor is done
  private Param<?>[] all;

  EncoderParams(String uid) {
    this.uid = uid;
    Settings.withParams().forEach(setting -> mirrored.put(setting.key(), paramOf(setting)));
    // The Transformer's own params: which columns to make, what to do with an invalid row.
    outputCol = new Param<>(uid, "outputCol", "output token vectors, array<array<float>>; '' = "
        + "not written");
    pooledCol = new Param<>(uid, "pooledCol", "pooled sentence vector, array<float>");
    attentionCol = new Param<>(uid, "attentionCol", "attention maps column; '' = no maps");
    statsCol = new Param<>(uid, "statsCol",
        "per-head attention statistics sums column; '' = none");
    rolloutCol = new Param<>(uid, "rolloutCol", "attention rollout column; '' = none");
    importanceCol = new Param<>(uid, "importanceCol", "each head's importance to the pooled "
        + "vector, array<double> (layer * heads + head), null for a row not sampled; '' = none");
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
    multiVectorsCol = new Param<>(uid, "multiVectorsCol", "ColBERT's vectors of the tokens "
        + "after the first, array<array<float>>");
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
    setDefault(importanceCol, "");
    setDefault(logitsCol, "logits");
    setDefault(scoresCol, "scores");
    setDefault(labelCol, "label");
    setDefault(tokenLabelsCol, "token_labels");
    setDefault(sparseIndicesCol, "sparse_indices");
    setDefault(sparseValuesCol, "sparse_values");
    setDefault(multiVectorsCol, "multi_vectors");
    setDefault(entitiesCol, "entities");
    setDefault(handleInvalid, "error");
    made = true;
  }

  // Params made from a Setting: its param name, doc, default and rule (checked when set).

  @SuppressWarnings("unchecked")
  private Param<?> paramOf(Setting<?> s) {
    return switch (s.type()) {
      case STRING -> stringParam((Setting<String>) s);
      case INT -> intParam((Setting<Integer>) s);
      case DOUBLE -> doubleParam((Setting<Double>) s);
      case BOOLEAN -> flagParam((Setting<Boolean>) s);
      case INT_LIST -> indicesParam((Setting<List<Integer>>) s);
      case STRING_LIST -> stringsParam((Setting<List<String>>) s);
    };
  }

  private Param<String> stringParam(Setting<String> s) {
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
  public Param<String> outputCol() { return outputCol; }
  public Param<String> pooledCol() { return pooledCol; }
  public Param<String> attentionCol() { return attentionCol; }
  public Param<String> statsCol() { return statsCol; }
  public Param<String> rolloutCol() { return rolloutCol; }
  public Param<String> importanceCol() { return importanceCol; }
  public Param<String> logitsCol() { return logitsCol; }
  public Param<String> scoresCol() { return scoresCol; }
  public Param<String> labelCol() { return labelCol; }
  public Param<String> sparseIndicesCol() { return sparseIndicesCol; }
  public Param<String> sparseValuesCol() { return sparseValuesCol; }
  public Param<String> multiVectorsCol() { return multiVectorsCol; }
  public Param<String> tokenLabelsCol() { return tokenLabelsCol; }
  public Param<String> entitiesCol() { return entitiesCol; }
  public Param<String> handleInvalid() { return handleInvalid; }

  /** The param that mirrors {@code setting}, which must name one. */
  public Param<?> param(Setting<?> setting) {
    Param<?> p = mirrored.get(setting.key());
    if (p == null) {
      throw new IllegalArgumentException(setting.key() + " has no param");
    }
    return p;
  }

  /**
   * Every param: those made from the settings and the transformer's own, by name (Spark ML
   * would otherwise look for them as no-argument methods).
   */
  @Override
  public Param<?>[] params() {
    if (all != null) {
      return all;
    }
    // While the constructor runs (setDefault asks for them), the params made so far.
    List<Param<?>> params = new ArrayList<>(mirrored == null ? List.of() : mirrored.values());
    Stream.of(outputCol, pooledCol, attentionCol, statsCol, rolloutCol, importanceCol, logitsCol,
        scoresCol, labelCol, sparseIndicesCol, sparseValuesCol, multiVectorsCol, tokenLabelsCol, entitiesCol,
        handleInvalid).filter(Objects::nonNull).forEach(params::add);
    params.sort(Comparator.comparing(Param::name));
    Param<?>[] found = params.toArray(new Param<?>[0]);
    if (made) {
      all = found;
    }
    return found;
  }

  /** The value of the param that mirrors {@code setting}: an array param's as a list. */
  @Override
  @SuppressWarnings("unchecked")
  public <T> T value(Setting<T> setting) {
    Object v = $(param(setting));
    if (v instanceof int[] indices) {
      return (T) Arrays.stream(indices).boxed().toList();
    }
    return (T) (v instanceof String[] strings ? List.of(strings) : v);
  }

  @Override
  public boolean given(Setting<?> setting) {
    return isSet(param(setting));
  }

  /** A refusal names the params. */
  @Override
  public SettingRules.Naming naming() {
    return SettingRules.Naming.PARAMS;
  }

  /** The value of a column param (an output's column; "" for none). */
  String column(Param<String> column) {
    return $(column);
  }

  /** The value of the param that mirrors a string setting. */
  @SuppressWarnings("unchecked")
  String string(Setting<String> setting) {
    return $((Param<String>) param(setting));
  }

  int intValue(Setting<Integer> setting) {
    return (Integer) $(param(setting));
  }

  boolean flag(Setting<Boolean> setting) {
    return (Boolean) $(param(setting));
  }

  double doubleValue(Setting<Double> setting) {
    return (Double) $(param(setting));
  }

  int[] indices(Setting<List<Integer>> setting) {
    return (int[]) $(param(setting));
  }

  String[] strings(Setting<List<String>> setting) {
    return (String[]) $(param(setting));
  }

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
