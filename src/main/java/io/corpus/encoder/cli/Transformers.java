package io.corpus.encoder.cli;

import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.pipeline.EncoderTransformer;
import java.util.LinkedHashMap;
import java.util.Map;

/** Job settings to an {@link EncoderTransformer}, and to the summary's description of the model. */
final class Transformers {
  private Transformers() {}

  static EncoderTransformer fromSettings(JobSettings s) {
    ModelSettings m = s.model();
    EncoderTransformer t = new EncoderTransformer()
        .setWeightsPath(s.weights().path())
        .setNaming(s.weights().naming().configName())
        .setHeads(m.heads())
        .setActivation(m.activation().configName())
        .setNormFirst(m.normFirst())
        .setFinalNorm(m.finalNorm())
        .setLayerNormEps(m.layerNormEps())
        .setCausal(m.causal())
        .setWindow(m.window())
        .setPositional(m.positional().configName())
        .setIdCol(s.input().idColumn())
        .setInputCol(s.input().embeddingsColumn())
        .setMaskCol(s.input().maskColumn())
        .setOutputCol("embeddings")
        .setPooledCol("pooled")
        .setPooling(s.output().pooling().configName())
        .setAttentionLayers(ints(s.output().attention().layers()))
        .setAttentionHeads(ints(s.output().attention().heads()))
        .setAttentionSample(s.output().attention().sample())
        .setAttentionIds(s.output().attention().ids().toArray(new String[0]))
        .setAttentionFormat(s.output().attention().format().configName())
        .setAttentionTopK(s.output().attention().topK())
        .setAttentionAverageHeads(s.output().attention().averageHeads())
        .setBatchTokens(s.execution().batchTokens())
        .setMaxLength(s.input().maxLength())
        .setHandleInvalid(s.input().onInvalid() == JobSettings.OnInvalid.FAIL ? "error" : "skip");
    return t;
  }

  static Map<String, Object> describe(JobSettings s, EncoderWeights w) {
    ModelSettings m = s.model();
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("weights", s.weights().path());
    d.put("naming", s.weights().naming().configName());
    d.put("layers", w.layerCount());
    d.put("width", w.width());
    d.put("heads", m.heads());
    d.put("ffn_width", w.ffnWidth());
    d.put("parameters", w.parameterCount());
    d.put("activation", m.activation().configName());
    d.put("norm_first", m.normFirst());
    d.put("final_norm", m.finalNorm());
    d.put("layer_norm_eps", m.layerNormEps());
    d.put("causal", m.causal());
    d.put("window", m.window());
    d.put("positional", m.positional().configName());
    d.put("max_positions", w.maxPositions());
    return d;
  }

  private static int[] ints(java.util.List<Integer> values) {
    return values.stream().mapToInt(Integer::intValue).toArray();
  }
}
