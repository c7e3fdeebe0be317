package io.corpus.encoder.cli;

import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.pipeline.EncoderTransformer;
import io.corpus.encoder.pipeline.LoadedModel;
import io.corpus.encoder.weights.ModelFolder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Job settings to an {@link EncoderTransformer}, and to the summary's description of the model. */
final class Transformers {
  private Transformers() {}

  /** The job's transformer: its settings as params, and the attention columns its tables need. */
  static EncoderTransformer fromSettings(JobSettings s) {
    ModelSettings m = s.model();
    JobSettings.Input in = s.input();
    EncoderTransformer t = new EncoderTransformer()
        .setIdCol(in.idColumn())
        .setMaskCol(in.maskColumn())
        .setCausal(m.causal())
        .setWindow(m.window())
        .setOutputCol(s.output().tokenEmbeddings() ? "embeddings" : "")
        .setPooledCol("pooled")
        .setPooling(s.output().pooling().configName())
        .setNormalize(String.valueOf(s.output().normalize()))
        .setDimensions(s.output().dimensions())
        .setAttentionLayers(ints(s.output().attention().layers()))
        .setAttentionHeads(ints(s.output().attention().heads()))
        .setAttentionSample(s.output().attention().sample())
        .setAttentionIds(s.output().attention().ids().toArray(new String[0]))
        .setAttentionFormat(s.output().attention().format().configName())
        .setAttentionTopK(s.output().attention().topK())
        .setAttentionAverageHeads(s.output().attention().averageHeads())
        .setBatchTokens(s.execution().batchTokens())
        .setHandleInvalid(in.onInvalid() == JobSettings.OnInvalid.FAIL ? "error" : "skip");
    if (s.weights().isFolder()) {
      t.setModelPath(s.weights().folder());   // the architecture is the folder's, checked
    } else {
      t.setWeightsPath(s.weights().path())
          .setNaming(s.weights().naming().configName())
          .setHeads(m.heads())
          .setActivation(m.activation().configName())
          .setNormFirst(m.normFirst())
          .setFinalNorm(m.finalNorm())
          .setLayerNormEps(m.layerNormEps())
          .setPositional(m.positional().configName());
    }
    switch (in.kind()) {
      case EMBEDDINGS -> t.setInputCol(in.embeddingsColumn()).setMaxLength(in.maxLength());
      case IDS -> t.setIdsCol(in.idsColumn()).setTypeIdsCol(in.typeIdsColumn());
      case TEXT -> {
        if (in.pairColumn().isEmpty()) {
          t.setTextCol(in.textColumn());
        } else {
          t.setTextPairCols(new String[] {in.textColumn(), in.pairColumn()});
        }
      }
      default -> throw new AssertionError(in.kind());
    }
    if (in.kind() != io.corpus.encoder.config.InputKind.EMBEDDINGS) {
      t.setMaxTokens(in.maxTokens()).setOnTooLong(in.onTooLong().configName())
          .setChunkOverlap(in.chunkOverlap()).setPromptName(in.prompt().name());
      if (in.prompt().textGiven()) {
        t.setPrompt(in.prompt().text());
      }
    }
    return EncodedTables.withAttentionColumns(t, s.output().attention());
  }

  static Map<String, Object> describe(JobSettings s, LoadedModel model) {
    ModelSettings m = s.model();
    EncoderWeights w = model.weights().encoder();
    Map<String, Object> d = new LinkedHashMap<>();
    if (s.weights().isFolder()) {
      d.put("path", s.environment().redact(s.weights().folder()));
      d.put("family", model.folder().family().name());
      d.put("vocabulary", model.weights().embeddings().vocabularySize());
      d.put("max_tokens", s.input().maxTokens());
      ModelFolder.Prompt prompt = fromSettings(s).resolvedPrompt();
      d.put("prompt_name", prompt.name().isEmpty() ? null : prompt.name());
      d.put("prompt", prompt.text());
      if (model.weights().head() != null) {
        d.put("classifier_labels", model.weights().head().labels());
        d.put("classifier_scores", model.weights().head().scoring().name().toLowerCase(
            java.util.Locale.ROOT));
      }
    } else {
      d.put("weights", s.environment().redact(s.weights().path()));
      d.put("naming", s.weights().naming().configName());
    }
    d.put("input", s.input().kind().name().toLowerCase(java.util.Locale.ROOT));
    d.put("layers", w.layerCount());
    d.put("width", w.width());
    d.put("heads", m.heads());
    d.put("ffn_width", w.ffnWidth());
    d.put("parameters", model.weights().parameterCount());
    d.put("activation", m.activation().configName());
    d.put("norm_first", m.normFirst());
    d.put("final_norm", m.finalNorm());
    d.put("layer_norm_eps", m.layerNormEps());
    d.put("causal", m.causal());
    d.put("window", m.window());
    d.put("positional", m.positional().configName());
    d.put("max_positions", model.folder() != null
        ? model.folder().usablePositions() : w.maxPositions());
    return d;
  }

  private static int[] ints(List<Integer> values) {
    return values.stream().mapToInt(Integer::intValue).toArray();
  }
}
