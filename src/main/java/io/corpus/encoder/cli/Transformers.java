package io.corpus.encoder.cli;

import io.corpus.encoder.config.InputKind;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.config.SettingRules;
import io.corpus.encoder.config.Settings;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.ClassifierHead;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.TokenClassifierHead;
import io.corpus.encoder.pipeline.EncoderTransformer;
import io.corpus.encoder.pipeline.LoadedModel;
import io.corpus.encoder.weights.LateInteraction;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Job settings to an {@link EncoderTransformer}, and to the summary's description of the model. */
final class Transformers {
  private Transformers() {}

  /** The job's transformer: its settings as params, and the attention columns its tables need. */
  static EncoderTransformer fromSettings(JobSettings s) {
    EncoderTransformer t = new EncoderTransformer();
    // settings the job resolves first are set below; the rest as the configuration gives them,
    // the Transformer checking each as the job's parser did
    Settings.withParams().filter(setting -> !setting.isResolvedByJob())
        .filter(setting -> s.given().containsKey(setting.key()))
        .forEach(setting -> t.setSetting(setting, s.given().get(setting.key())));
    JobSettings.Input in = s.input();
    t.setOutputCol(s.output().tokenEmbeddings() ? "embeddings" : "")
        .setPooledCol("pooled")
        .setHandleInvalid(in.onInvalid() == JobSettings.OnInvalid.FAIL ? "error" : "skip");
    if (!s.output().quantizeRanges().isEmpty()) {
      t.setQuantizeRanges(s.output().quantizeRanges());
    }
    if (s.weights().isFolder()) {
      t.setModelPath(s.weights().folder());
    } else {
      t.setWeightsPath(s.weights().path());
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
    if (in.kind() != InputKind.EMBEDDINGS) {
      t.setMaxTokens(in.maxTokens()).setOnTooLong(in.onTooLong().configName())
          .setChunkOverlap(in.chunkOverlap());
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
      fromSettings(s).resolvedPrompt().described().forEach((key, value) -> d.put(key,
          s.environment().hidden(Settings.PROMPT.key(), value)));
      model.folder().lateInteraction().ifPresent(late -> d.put("colbert",
          colbert(late, s.input().maxTokens(), SettingRules.queries(s))));
      model.weights().head(TokenClassifierHead.class)
          .ifPresent(h -> d.put("token_labels", h.labels()));
      model.weights().head(ClassifierHead.class).ifPresent(h -> {
        d.put("classifier_labels", h.labels());
        d.put("classifier_scores", h.scoring().name().toLowerCase(java.util.Locale.ROOT));
      });
    } else {
      d.put("weights", s.environment().redact(s.weights().path()));
      d.put("naming", s.weights().naming().configName());
    }
    d.put("input", s.input().kind().name().toLowerCase(java.util.Locale.ROOT));
    if (s.weights().isFolder() && model.folder().staticEmbeddings().isPresent()) {
      d.remove("max_tokens");
      d.put("static_reading", model.folder().staticEmbeddings().get().reading().described());
      d.put("width", model.weights().width());
      d.put("parameters", model.parameters());
      return d;   // no transformer: the mean of the tokens' rows
    }
    d.put("layers", w.layerCount());
    d.put("width", w.width());
    d.put("heads", m.heads());
    d.put("ffn_width", w.ffnWidth());
    d.put("parameters", model.parameters());
    Architecture a = m.architecture();
    d.put("activation", a.activation().configName());
    d.put("norm_first", a.norms().placement().first());
    d.put("final_norm", a.norms().finalNorm());
    d.put("layer_norm_eps", a.norms().eps());
    d.put("causal", a.causal());
    d.put("window", m.window().setting());
    d.put("positional", m.positional().configName());
    d.put("max_positions", model.maxPositions());
    d.put("precision", s.weights().precision().configName());
    return d;
  }

  /** How a PyLate folder read the texts, for the summary. */
  private static Map<String, Object> colbert(LateInteraction late, int length, boolean query) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("role", query ? "query" : "document");
    d.put("prefix", late.prefix(query));
    d.put("length", length);
    d.put("query_expansion", query && late.queryExpansion());
    d.put("attend_to_expansion_tokens", query && late.attendToExpansion());
    d.put("skiplist_words", query ? List.of() : late.skiplistWords());
    return d;
  }
}
