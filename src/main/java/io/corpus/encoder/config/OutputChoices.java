package io.corpus.encoder.config;

import io.corpus.encoder.model.Pooling;
import io.corpus.encoder.model.Quantization;
import io.corpus.encoder.weights.AskedHead;
import io.corpus.encoder.weights.ModelFolder;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What the output settings resolve to for a model, by one reading for a job's file and for the
 * Transformer's params: the pooling (auto: the folder's), whether the pooled vector is
 * L2-normalized (auto: as the folder's pipeline ends), whether bge-m3's lexical weights and
 * ColBERT's vectors are written (auto: as the folder has them), and how the pooled vector is
 * written.
 *
 * @param quantization the pooled vector's quantization ({@link Quantization#NONE}: floats)
 */
public record OutputChoices(Pooling pooling, boolean normalize, boolean lexical,
    boolean multiVector, Quantization quantization) implements Serializable {

  /**
   * The settings {@code v} resolved for {@code folder} (null: a weights file, where no setting
   * is automatic); throws the first rule broken, naming the settings as {@code v} names them.
   */
  public static OutputChoices of(SettingValues v, ModelFolder folder) {
    Pooling pooling = AutoChoices.pooling(v.value(Settings.POOLING), folder);
    return new OutputChoices(pooling,
        AutoChoices.normalize(v.value(Settings.NORMALIZE), folder, pooling),
        AutoChoices.lexical(v.value(Settings.SPARSE), folder, pooling),
        AutoChoices.multiVector(v.value(Settings.MULTI_VECTOR), folder),
        SettingRules.quantization(v, pooling));
  }

  /** The settings these choices resolve, by key, as the run summary gives them. */
  public Map<String, Object> used() {
    Map<String, Object> used = new LinkedHashMap<>();
    used.put(Settings.POOLING.key(), pooling.configName());
    used.put(Settings.NORMALIZE.key(), normalize);
    used.put(Settings.SPARSE.key(), lexical ? "lexical" : "none");
    used.put(Settings.MULTI_VECTOR.key(), multiVector ? "colbert" : "none");
    return used;
  }

  /** The heads beyond the folder's own these outputs read. */
  public Set<AskedHead> heads() {
    return AskedHead.of(pooling, lexical, multiVector);
  }
}
