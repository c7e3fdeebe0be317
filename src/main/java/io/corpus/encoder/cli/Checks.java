package io.corpus.encoder.cli;

import io.corpus.encoder.config.AutoChoices;
import io.corpus.encoder.config.InputKind;
import io.corpus.encoder.config.JobSettings;
import io.corpus.encoder.config.SettingRules;
import io.corpus.encoder.kernel.PrecisionCalibration;
import io.corpus.encoder.model.Architecture;
import io.corpus.encoder.model.ClassifierHead;
import io.corpus.encoder.model.EmbeddingWeights;
import io.corpus.encoder.model.EncoderWeights;
import io.corpus.encoder.model.LayerAttention;
import io.corpus.encoder.model.ModelSettings;
import io.corpus.encoder.model.NormKind;
import io.corpus.encoder.model.RotaryPositions;
import io.corpus.encoder.model.Shapes;
import io.corpus.encoder.pipeline.LoadedModel;
import io.corpus.encoder.weights.LateInteraction;
import io.corpus.encoder.text.StaticReading;

/**
 * {@code jobs/encode --config FILE --check}: every check a job makes before its first task (the
 * settings, {@link Preflight}'s paths, output and input columns, the model folder or weights file
 * with every tensor's shape, the tokenizer against the embedding table), then one paragraph on
 * what was found; no Spark.
 */
final class Checks {
  private Checks() {}

  /** The static embeddings' table and how texts are read, in a line's words. */
  static String staticTable(LoadedModel model) {
    EmbeddingWeights table = model.weights().embeddings();
    StaticReading reading = model.folder().staticEmbeddings().orElseThrow().reading();
    return String.format("%,d tokens × %d values, %,d parameters; a text's vector is the mean "
        + "of its tokens' (no special token%s)%s", table.vocabularySize(), table.width(),
        model.parameters(), reading.idLimit() == 0 ? ", no token limit"
            : String.format("; model2vec's reading: the text cut to %d code points, id %d "
                + "dropped, %d ids kept", reading.charLimit(), reading.unknownId(),
                reading.idLimit()),
        model.folder().normalize() ? ", normalized" : ", not normalized");
  }

  /** The encoder's layers, attention, memory and precision, in lines. */
  private static void describeEncoder(StringBuilder s, JobSettings settings, LoadedModel model) {
    EncoderWeights w = model.weights().encoder();
    s.append(String.format("model: %s%s; %d layers, E = %d, H = %d, F = %d, %,d parameters%n",
        settings.weights().location(), model.isFolder() ? " (" + model.folder().family().name()
            + ")" : "", w.layerCount(), w.width(), settings.model().heads(), w.ffnWidth(),
        model.parameters()));
    ModelSettings m = model.settings();
    Architecture a = m.architecture();
    int headWidth = m.headWidth(w.width());
    if (m.kvHeads() != m.heads() || m.heads() * headWidth != w.width() || a.causal()
        || a.norms().kind() != NormKind.LAYER) {
      s.append(String.format("attention: %d heads of %d values on %d KV heads; %s norms%s%n",
          m.heads(), headWidth, m.kvHeads(), a.norms().kind() == NormKind.RMS ? "RMS" : "layer",
          a.causal() ? "; causal" : ""));
    }
    if (model.isFolder() && !a.layers().isEmpty()) {
      s.append("layers: ").append(layerPattern(m)).append('\n');
    }
    s.append(memory(model, settings.execution().batchTokens())).append('\n');
    s.append("precision: ").append(settings.weights().precision().configName()).append("; ")
        .append(PrecisionCalibration.describe()).append('\n');
  }

  /** The tokenizer checked (text input), then what the job would run, in a few lines. */
  static String describe(JobSettings settings, LoadedModel model, Preflight.Found found,
      Preflight.Tokenizer tokenizer, double seconds) {
    StringBuilder s = new StringBuilder("check: ok in " + String.format("%.1f", seconds) + " s\n");
    if (model.weights().encoder().layerCount() == 0) {
      s.append(String.format("model: %s (%s); static embeddings: %s%n",
          settings.weights().location(), model.folder().family().name(), staticTable(model)));
    } else {
      describeEncoder(s, settings, model);
    }
    JobSettings.Input in = settings.input();
    if (tokenizer != null) {
      s.append(String.format("tokenizer: %,d ids (highest %,d) for an embedding table of %,d "
          + "rows; %s%n", tokenizer.vocabulary().size(),
          tokenizer.vocabulary().highestId(), model.weights().embeddings().vocabularySize(),
          tokenizer.maxTokens() == Integer.MAX_VALUE ? "no token limit"
              : "at most " + tokenizer.maxTokens() + " tokens a sequence"));
    }
    if (model.isFolder() && in.kind() == InputKind.TEXT) {
      AutoChoices.Prompt prompt = Transformers.fromSettings(settings).resolvedPrompt();
      s.append("prompt: ").append(prompt.text().isEmpty() ? "none"
          : "'" + prompt.text().replace("\n", "\\n") + "'"
          + (prompt.name().isEmpty() ? "" : " (" + prompt.name() + ")")).append('\n');
    }
    if (found.prompted() != null) {
      s.append(found.prompted().line()).append('\n');
    }
    s.append("input: ").append(in.kind().name().toLowerCase(java.util.Locale.ROOT))
        .append(" from ").append(in.path()).append(": ").append(found.input())
        .append('\n');
    String classifier = model.weights().head(ClassifierHead.class).map(head -> "; classifier of "
        + head.labelCount() + " labels " + head.labels() + ", scores "
        + head.scoring().name().toLowerCase(java.util.Locale.ROOT)).orElse("");
    s.append("output: ").append(settings.output().path()).append("; pooling ")
        .append(settings.output().pooling().configName())
        .append(settings.output().normalize() ? ", normalized" : "")
        .append(classifier)
        .append(settings.output().multiVector() ? "; ColBERT multi-vectors" : "")
        .append(!model.isFolder() ? "" : model.folder().lateInteraction()
            .map(late -> colbert(late, in.maxTokens(),
                SettingRules.queries(settings))).orElse(""));
    return s.toString();
  }

  /** How a PyLate folder reads the texts: "(queries: '[Q] ' after the first token, ...)". */
  private static String colbert(LateInteraction late, int length, boolean query) {
    String prefix = late.prefix(query);
    return " (" + (query ? "queries" : "documents") + ": " + (prefix.isEmpty() ? "no prefix"
        : "'" + prefix + "' after the first token") + ", at most " + length + " tokens"
        + (!query ? ", no vectors for " + late.skiplistWords().size() + " skiplist words"
            : !late.queryExpansion() ? ", not expanded"
            : ", padded with the mask token to " + length + (late.attendToExpansion()
                ? ", the padding attended to" : ", the padding not attended to")) + ")";
  }

  /**
   * The memory the model takes: its float32 weights, once on the driver and once on each
   * executor (broadcast), and each task slot's work buffers for a batch of
   * {@code batchTokens} tokens (the encoder's q, k, v, context, residual and feed-forward
   * buffers and the batch itself).
   */
  static String memory(LoadedModel model, int batchTokens) {
    Shapes shapes = Shapes.of(model.settings(), model.weights().encoder());
    // The encoder's buffers and the batch's own (N, E) tokens.
    long floats = shapes.bufferFloats(batchTokens) + shapes.streamFloats(batchTokens);
    long float32 = model.weights().heldValues() * 4;
    long held = model.weights().bytes();
    String weights = held == float32
        ? String.format("%,.1f MB of float32 weights on the driver and on each executor",
            float32 / 1e6)
        : String.format("%,.1f MB of weights (%s products) on the driver and on each executor, "
            + "read in float32 first (%,.1f MB)", held / 1e6,
            model.weights().precision().configName(), float32 / 1e6);
    return String.format("memory: %s; %,.1f MB of work buffers a task slot at %,d batch tokens",
        weights, floats * 4 / 1e6, batchTokens);
  }

  /**
   * How the layers attend, in runs: "0-0 global (rotary θ 160000), 1-2 window ±64 (rotary θ
   * 10000), …".
   */
  static String layerPattern(ModelSettings m) {
    StringBuilder s = new StringBuilder();
    int start = 0;
    int layers = m.architecture().layers().size();
    for (int l = 1; l <= layers; l++) {
      if (l == layers || !m.layer(l).equals(m.layer(start))) {
        LayerAttention a = m.layer(start);
        s.append(s.length() == 0 ? "" : ", ").append(start).append(l - 1 > start ? "-" + (l - 1)
            : "").append(" ").append(a.window())
            .append(a.rotary() == RotaryPositions.NONE ? "" : " (" + a.rotary() + ")");
        start = l;
      }
    }
    return s.toString();
  }
}
